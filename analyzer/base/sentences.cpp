#include "base/sentences.hpp"

#include <array>
#include <atomic>
#include <cstdlib>

#include "base/sentences_tables.hpp"

namespace dtriage::base {
namespace {

struct Entry {
  Say key;
  std::string_view name;
  std::string_view text;
};

// One row per key, in the enum's order (a test checks it).
constexpr std::array<Entry, static_cast<std::size_t>(Say::kCount)> kEnglish = {{
    {Say::VerdictUnknownLead, "verdict.unknown-lead", "No rule names the cause; the earliest error is {where}: {message}"},
    {Say::VerdictUnknownLeadOnNode, "verdict.unknown-lead-on-node",
     "No rule names the cause; the earliest error is {where} on {node}: {message}"},
    {Say::VerdictCatalogueCause, "verdict.catalogue-cause",
     "No rule names the cause; the earliest error the catalogues know is {where}: {message} ({meaning})"},
    {Say::VerdictCatalogueConsequence, "verdict.catalogue-consequence",
     "No rule names the cause; the earliest error the catalogues know is {where}: {message}, usually a consequence of {of}"},
    {Say::WhyCatalogueRefines, "why.catalogue-refines",
     "Its error, {message}, is {category} by the catalogues ({entry}): {meaning}"},
    {Say::VerdictNothingRecognised, "verdict.nothing-recognised", "No log line in the input was recognised."},
    {Say::VerdictStoppedBeforeTraining, "verdict.stopped-before-training",
     "torchrun was started on {nodes} node(s) but no worker wrote anything: the logs stop before training began (in "
     "rendezvous, or the job was stopped)"},
    {Say::VerdictHealthyLines, "verdict.healthy-lines", "No failure found in {count} lines."},
    {Say::VerdictHealthyEvents, "verdict.healthy-events", "No failure found in {count} events."},
    {Say::VerdictHealthyNcclWarnings, "verdict.healthy-nccl-warnings",
     " NCCL printed warnings that no rule ties to a failure (first: {where})."},
    {Say::VerdictRecovered, "verdict.recovered",
     "The run went on after a failure (a restart or a retry recovered it: no launcher gave up, and the workers kept printing "
     "after it): {what}"},
    {Say::VerdictStoppedAfterSteps, "verdict.stopped-after-steps",
     "Training had finished (every progress print that says of how many steps had reached its last, {steps}) before the "
     "job was stopped from outside: {what}"},
    {Say::FindingEarlierAttempt, "finding.earlier-attempt", " (in a restart attempt; the workers were started again after it)"},
    {Say::RankSignal, "rank.signal", "{signal}"},
    {Say::RankSignalOom, "rank.signal-oom", "{signal} from the kernel's OOM killer"},
    {Say::RankSignalCrash, "rank.signal-crash", "{signal} (a crash)"},
    {Say::RankExit, "rank.exit", "exit code {code}"},
    {Say::RankStopped, "rank.stopped", "{signal} from its launcher"},
    {Say::WhyFirst, "why.first", "Rank {rank} failed on its own first: {what}{when}"},
    {Say::WhyLater, "why.later", "{count} other rank(s) failed on their own later; the first of them, rank {rank}: {what}{when}"},
    {Say::WhyOnly, "why.only", "Rank {rank} is the only rank that failed on its own: {what}{when}"},
    {Say::WhyVictims, "why.victims", "{count} other rank(s) only timed out or lost a peer"},
    {Say::WhyDistinct, "why.distinct", "Rank {rank} ended with {what}; {count} other rank(s) failing at the same time ended with {common}"},
    {Say::WhyStronger, "why.stronger", "Rank {rank} ended with {what}, which says more than {others} at the same time"},
    {Say::WhySilentStopped, "why.silent-stopped",
     "{count} rank(s) timed out or lost a peer; rank {rank} never did: it was still busy when its launcher stopped it ({signal})"},
    {Say::WhySilentRunning, "why.silent-running",
     "{count} rank(s) timed out or lost a peer; rank {rank} never did: it was still running when the logs stop"},
    {Say::WhySilentAbsent, "why.silent-absent",
     "{count} rank(s) timed out or lost a peer; rank {rank} never did: the launch implies it, but no line of it is in the logs"},
    {Say::WhyQuietNodeRank, "why.quiet-node-rank",
     "{count} node(s) reported a timeout or a lost peer; {node} reported neither, and rank {rank} is the one rank it ran"},
    {Say::WhyLateNodeRank, "why.late-node-rank",
     "{count} node(s) timed out waiting; {node} only lost its peers after that (it came late), and rank {rank} is the one rank it ran"},
    {Say::WhyShortNodeRank, "why.short-node-rank",
     "On {node} only {reported} of its {procs} processes reported a timeout or a lost peer, and rank {rank} is the one of its ranks that no "
     "line shows ending"},
    {Say::WhyFirstInStream, "why.first-in-stream",
     "Ranks {ranks} failed on their own in the same second; their node's output shows rank {rank} failing first ({what})"},
    {Say::WhyLate, "why.late", "{count} rank(s) timed out waiting; rank {rank} lost its peers only after that: it reached the collective late"},
    {Say::WhyPlainVictims, "why.plain-victims",
     "{count} exit(s) on {node} follow timeout or lost-peer reports that no prefix ties to a rank: taken as victims"},
    {Say::WhyTie, "why.tie",
     "No rank named: ranks {ranks} failed on their own at the same time in the same way, and the logs do not say which came first"},
    {Say::WhyFirstObserved, "why.first-observed",
     "Ranks {ranks} failed in the same second in the same way; their launcher saw rank {rank} first (its Root Cause row), "
     "the only order the logs give"},
    {Say::WhyAfterPeerLoss, "why.after-peer-loss",
     "Rank {late}'s {latewhat} was printed after a lost-peer report from "
     "{reporter} ({where}), so a rank had already gone by then: rank {rank} ({what}) failed first"},
    {Say::HeadingEvidence, "heading.evidence", "Evidence"},
    {Say::HeadingConsequences, "heading.consequences", "Explained by the root cause"},
    {Say::HeadingNodes, "heading.nodes", "Nodes"},
    {Say::HeadingRanks, "heading.ranks", "Ranks"},
    {Say::HeadingOthers, "heading.others", "Other findings"},
    {Say::HeadingWhy, "heading.why", "Why this rank"},
    {Say::HeadingInputs, "heading.inputs", "Inputs"},
    {Say::LabelFix, "label.fix", "Fix"},
    {Say::EvidenceAlsoAt, "evidence.also-at", "the same line also at {where}"},
    {Say::EvidenceAlsoAtMore, "evidence.also-at-more", "the same line also at {where} and {count} more"},
    {Say::CheckTitleDevices, "check.title-devices",
     "device count, model and memory equal on every node and to nproc_per_node; none held"},
    {Say::CheckTitleTopology, "check.title-topology",
     "the same device topology on every node; MASTER_ADDR:PORT reachable; /dev/shm large enough"},
    {Say::CheckTitleVersions, "check.title-versions", "driver, CUDA / CANN, torch, NCCL, packages and code equal on every node"},
    {Say::CheckTitleLaunch, "check.title-launch", "WORLD_SIZE = nnodes x nproc_per_node; one MASTER_ADDR / PORT; the port free"},
    {Say::CheckTitleBinding, "check.title-binding", "every rank on its own (host, device); the smoke test's all_reduce right"},
    {Say::CheckTitleData, "check.title-data", "each rank reads its own samples; one writer per checkpoint path"},
    {Say::CheckNoAccelerator, "check.no-accelerator", "no accelerator found ({tools})"},
    {Say::CheckNoDevices, "check.no-devices", "no devices found ({tools}); the other nodes have {count}"},
    {Say::CheckDeviceCount, "check.device-count", "{count} devices; the other nodes have {reference}"},
    {Say::CheckMixedModels, "check.mixed-models", "mixed models: {models}"},
    {Say::CheckModelCount, "check.model-count", "{count} x {model}"},
    {Say::CheckOtherModel, "check.other-model", "model {model}; the other nodes have {reference}"},
    {Say::CheckSmallerMemory, "check.smaller-memory", "device {device} has {mib} MiB; the largest {model} has {largest} MiB"},
    {Say::CheckDeviceHealth, "check.device-health", "device {device} health {health}"},
    {Say::CheckMemoryHeld, "check.memory-held", "pid {pid}{process} holds {amount}{where}"},
    {Say::CheckMemoryHeldProcess, "check.memory-held-process", " ({process})"},
    {Say::CheckMemoryHeldMib, "check.memory-held-mib", "{mib} MiB"},
    {Say::CheckMemoryHeldUnknown, "check.memory-held-unknown", "memory"},
    {Say::CheckMemoryHeldOnDevice, "check.memory-held-on-device", " on device {device}"},
    {Say::CheckNprocAboveDevices, "check.nproc-above-devices", "nproc_per_node={nproc} but only {count} devices"},
    {Say::CheckNprocAboveVisible, "check.nproc-above-visible", "nproc_per_node={nproc} but only {count} devices in {var}"},
    {Say::CheckNprocBelowDevices, "check.nproc-below-devices",
     "nproc_per_node={nproc} uses {nproc} of {count} devices: code that picks devices itself may put two processes on one"},
    {Say::CheckTorchDevicesVisible, "check.torch-devices-visible", "torch sees {torch} devices, {var} lists {count}"},
    {Say::CheckTorchDevicesTools, "check.torch-devices-tools", "torch sees {torch} devices, {platform} tools list {count}"},
    {Say::CheckDevicesPass, "check.devices-pass", "{count} x {model}{memory}, none held"},
    {Say::CheckDevicesPassMemory, "check.devices-pass-memory", ", {mib} MiB each"},
    {Say::CheckTopologyMissing, "check.topology-missing", "no topology recorded; other nodes have one"},
    {Say::CheckTopologyRowOne, "check.topology-row-one", "'{mine}' where {nodes} has '{theirs}'"},
    {Say::CheckTopologyRowMany, "check.topology-row-many", "'{mine}' where {nodes} have '{theirs}'"},
    {Say::CheckTopologyRows, "check.topology-rows", "{rows} rows; {nodes} differ"},
    {Say::CheckTopologyDiffers, "check.topology-differs", "topology differs: {diff}"},
    {Say::CheckTopologyPass, "check.topology-pass", "topology as on every node ({count} devices)"},
    {Say::CheckMasterAnswers, "check.master-answers", "master {addr} answers"},
    {Say::CheckMasterRefused, "check.master-refused", "master {addr} answers (nothing listens yet, as before a launch)"},
    {Say::CheckMasterNotTested, "check.master-not-tested", "master not tested (no MASTER_ADDR)"},
    {Say::CheckMasterUnreachable, "check.master-unreachable", "master {addr}:{port} {reach}"},
    {Say::CheckMasterTimeout, "check.master-timeout", "master {addr}:{port} {reach} (a firewall drops it, or the host is down)"},
    {Say::CheckShmTooSmall, "check.shm-too-small",
     "/dev/shm is {mib} MiB for {count} processes: too small for NCCL's shared-memory buffers (docker: --shm-size=16g, or --ipc=host)"},
    {Say::CheckShmSmall, "check.shm-small",
     "/dev/shm is {mib} MiB for {count} processes: NCCL may run out of it (1 GiB or more is safe)"},
    {Say::CheckVersionMissing, "check.version-missing", "{name} not recorded"},
    {Say::CheckVersionDiffersOne, "check.version-differs-one", "{name} {value}; {nodes} has {reference}"},
    {Say::CheckVersionDiffersMany, "check.version-differs-many", "{name} {value}; {nodes} have {reference}"},
    {Say::CheckCudaNeedsDriver, "check.cuda-needs-driver",
     "torch's CUDA {runtime} needs a newer driver: driver {driver} supports CUDA {cuda}"},
    {Say::CheckCudaNewerThanDriver, "check.cuda-newer-than-driver",
     "torch's CUDA {runtime} is newer than the driver's CUDA {cuda} (runs only through minor-version compatibility)"},
    {Say::CheckVariableDiffers, "check.variable-differs", "{name}={value}; {nodes}: {reference}"},
    {Say::CheckVariableUnset, "check.variable-unset", "(unset)"},
    {Say::CheckNoVersions, "check.no-versions", "no versions recorded"},
    {Say::CheckVersionsPass, "check.versions-pass", "same as every node: {versions}"},
    {Say::CheckWorldSizeMismatch, "check.world-size-mismatch",
     "WORLD_SIZE={world} but nnodes {nnodes} x nproc_per_node {nproc} = {product}"},
    {Say::CheckWorldSizeAddsUp, "check.world-size-adds-up", "WORLD_SIZE={world} = {nnodes} x {nproc}"},
    {Say::CheckWorldSizeImplied, "check.world-size-implied", "world size {world} = {nnodes} x {nproc}"},
    {Say::CheckNodeRankOutside, "check.node-rank-outside", "NODE_RANK={rank} outside 0..{last}"},
    {Say::CheckMasterAddrDiffers, "check.master-addr-differs", "MASTER_ADDR={addr}; the others use {reference}"},
    {Say::CheckMasterPortDiffers, "check.master-port-differs", "MASTER_PORT={port}; the others use {reference}"},
    {Say::CheckPortBound, "check.port-bound", "port {port} is already bound by {who}"},
    {Say::CheckPortHolderPid, "check.port-holder-pid", "pid {pid}"},
    {Say::CheckPortHolderUnknown, "check.port-holder-unknown", "an unknown process"},
    {Say::CheckPortHolderProcess, "check.port-holder-process", "{who} ({process})"},
    {Say::CheckPortFree, "check.port-free", "port {port} free"},
    {Say::CheckStillRunning, "check.still-running", "still running: {command}"},
    {Say::CheckNoLaunchVariables, "check.no-launch-variables", "no launch variables recorded"},
    {Say::CheckNodeRankShared, "check.node-rank-shared", "NODE_RANK={rank} on {nodes}: each node needs its own"},
    {Say::CheckTooManySnapshots, "check.too-many-snapshots", "{count} nodes have snapshots but nnodes is {nnodes}"},
    {Say::CheckFewerSnapshots, "check.fewer-snapshots", "snapshots from {count} of {nnodes} nodes"},
    {Say::CheckSmokeWorldSizes, "check.smoke-world-sizes", "smoke-test ranks disagree on the world size: {sizes}"},
    {Say::CheckRanksOnOneDevice, "check.ranks-on-one-device", "ranks {ranks} all on {device}"},
    {Say::CheckRanksOnDeviceZero, "check.ranks-on-device-zero",
     "ranks {ranks} all on {device}: every rank on device 0, so LOCAL_RANK is ignored (set the device from LOCAL_RANK)"},
    {Say::CheckSmokeRankFailed, "check.smoke-rank-failed", "rank {rank} failed: {error}"},
    {Say::CheckSmokeWrongSum, "check.smoke-wrong-sum", "rank {rank} reduced {reduced}, expected {expected}"},
    {Say::CheckBindingPass, "check.binding-pass", "ranks {ranks} each on its own device ({devices}), all_reduce right"},
    {Say::CheckRanksNeverReported, "check.ranks-never-reported",
     "ranks {ranks} of {world} never reported (the smoke test did not finish there)"},
    {Say::CheckRankOnTwoNodes, "check.rank-on-two-nodes", "rank {rank} reported by {nodes}: two nodes use the same NODE_RANK"},
    {Say::CheckNcclDuplicateGpu, "check.nccl-duplicate-gpu", "NCCL: {message}"},
    {Say::CheckLogRanksOnOneDevice, "check.log-ranks-on-one-device", "ranks {ranks} all on device {device} (training log)"},
    {Say::CheckLogBindingPass, "check.log-binding-pass", "every rank the training logs tie to a device has its own"},
    {Say::CheckNoBindingInput, "check.no-binding-input", "no smoke-test output or training log that ties ranks to devices"},
    {Say::CheckWholeDatasetOne, "check.whole-dataset-one",
     "rank {ranks} iterates all {count} samples of the dataset: no DistributedSampler, every rank trains on the same data"},
    {Say::CheckWholeDatasetMany, "check.whole-dataset-many",
     "ranks {ranks} iterate all {count} samples of the dataset: no DistributedSampler, every rank trains on the same data"},
    {Say::CheckSmokeSameBatch, "check.smoke-same-batch",
     "ranks {ranks} start from the same batch ({batch}): their samplers do not split the data"},
    {Say::CheckSmokeSameCheckpoint, "check.smoke-same-checkpoint",
     "ranks {ranks} all write {path}: save from rank 0 only (or one path per rank)"},
    {Say::CheckLogSameBatch, "check.log-same-batch", "ranks {ranks} log the same first batch ({batch})"},
    {Say::CheckLogSameCheckpoint, "check.log-same-checkpoint", "ranks {ranks} all save {path}"},
    {Say::CheckLogWholeDataset, "check.log-whole-dataset",
     "rank {rank} iterates {count} samples, the whole dataset: no DistributedSampler"},
    {Say::CheckDataPass, "check.data-pass", "ranks read different first batches; each checkpoint path has one writer"},
    {Say::CheckNoDataInput, "check.no-data-input",
     "no smoke-test data lines or training log lines about batches, sampler lengths or checkpoints"},
    {Say::CheckNoSnapshots, "check.no-snapshots", "no snapshots"},
    {Say::CheckNothingToCompare, "check.nothing-to-compare", "nothing to compare"},
    {Say::CheckNoSection, "check.no-section", "(no {section} section)"},
    {Say::CheckReportNodesOne, "check.report-nodes-one", "dtriage check: {count} node"},
    {Say::CheckReportNodesMany, "check.report-nodes-many", "dtriage check: {count} nodes"},
    {Say::CheckReportStatus, "check.report-status", "dtriage check: {status}"},
    {Say::CheckReportResult, "check.report-result", "result: {status}"},
    {Say::CheckReportFailed, "check.report-failed", " (failed: {checks})"},
    {Say::CheckReportWarnings, "check.report-warnings", " (warnings: {checks})"},
    {Say::CheckReportUnreadable, "check.report-unreadable", "unreadable: {path}: {reason}"},
    {Say::CheckReportUnreadableMarkdown, "check.report-unreadable-markdown", "Unreadable: {path}: {reason}"},
    {Say::CheckReportJob, "check.report-job", "(job)"},
    {Say::CheckReportColumns, "check.report-columns", "| # | check | status | node | details |"},
    {Say::InputNotReadToEnd, "input.not-read-to-end", "not read to the end: {error}"},
    {Say::InputTimeBudget, "input.time-budget", "time budget exceeded (--job-timeout); the rest was not read"},
    {Say::InputTotalLimit, "input.total-limit", "total size limit of {size} reached (--max-total-bytes); the rest was not read"},
    {Say::InputTotalLimitNotRead, "input.total-limit-not-read", "not read: total size limit reached (--max-total-bytes)"},
    {Say::InputLinesKept, "input.lines-kept", "{reason} (lines before it were kept)"},
    {Say::InputBinary, "input.binary", "binary data, not a text log"},
    {Say::InputUnsupportedFormat, "input.unsupported-format", "{format}, a format dtriage does not read: unpack it ({how}) and give the folder"},
    {Say::InputManyJobs, "input.many-jobs",
     "the input looks like {count} jobs ({some}: each has a rank 0 of its own), analysed here as one; `dtriage scan` analyses each entry as its own job"},
    {Say::InputNestedTooDeep, "input.nested-too-deep", "archives nested deeper than {depth} levels"},
    {Say::InputShrank, "input.shrank", "shrank while read: ended after {read} of its {size} bytes (lines before were kept)"},
    {Say::InputSymlinkOutside, "input.symlink-outside",
     "symlink to {target}, outside {root} (--follow-outside-links to read it)"},
    {Say::InputBrokenSymlink, "input.broken-symlink", "broken symlink: {error}"},
    {Say::InputSymlinkLoop, "input.symlink-loop", "symlink loop: leads back to a directory being walked"},
    {Say::InputSameDirectory, "input.same-directory", "same directory as {path}"},
    {Say::InputSameFile, "input.same-file", "same file as {path}"},
    {Say::InputSameInput, "input.same-input", "same input as {path}"},
    {Say::InputNotRegular, "input.not-regular", "not a regular file"},
    {Say::InputRatio, "input.ratio",
     "expands more than {ratio} times ({out} from {in}; a decompression bomb?); raise --max-ratio to read it"},
    {Say::InputRunRatio, "input.run-ratio", "{reason} (all the run's inputs together)"},
    {Say::InputAllLayers, "input.all-layers", "{reason} (all layers of this input together)"},
    {Say::InputInStream, "input.in-stream", "{codec}: {reason}"},
    {Say::InputTruncated, "input.truncated", "truncated input (the stream ends before its end marker)"},
    {Say::InputCannotInitialise, "input.cannot-initialise", "cannot initialise {library}"},
    {Say::InputCorrupt, "input.corrupt", "corrupt data ({detail})"},
    {Say::InputCorruptCode, "input.corrupt-code", "corrupt data (error {code})"},
    {Say::InputCorruptLibraryCode, "input.corrupt-library-code", "corrupt data ({library} error {code})"},
    {Say::InputInflateFailed, "input.inflate-failed", "inflate failed"},
    {Say::InputZstdWindow, "input.zstd-window",
     "a frame needs a window over 2^{log} bytes of memory; raise --zstd-window-log-max to read it"},
    {Say::InputXzMemory, "input.xz-memory",
     "an xz stream needs more than {limit} of memory to decode; raise --zstd-window-log-max (it caps xz as well) to read it"},
    {Say::InputGarbageSkipped, "input.garbage-skipped",
     "{count} bytes of garbage after a member at byte {offset} were skipped; the members after them were read"},
    {Say::InputGarbageAtEnd, "input.garbage-at-end",
     "{count} bytes of garbage after a member at byte {offset} were skipped (no member after them)"},
    {Say::InputGarbageTooLong, "input.garbage-too-long",
     "more than {count} bytes that start no member after a member at byte {offset}: the rest was not read"},
    {Say::InputLinkInArchive, "input.link-in-archive", "link inside the archive"},
    {Say::InputNotRegularInArchive, "input.not-regular-in-archive", "not a regular file inside the archive"},
    {Say::InputAfterMembers, "input.after-members", "{reason} after {count} members"},
    {Say::InputPathAfterMembers, "input.path-after-members", "{path} (after {count} members)"},
    {Say::InputRestOfArchive, "input.rest-of-archive", "the rest of the archive was not read: {reason}"},
    {Say::InputTarMemberCut, "input.tar-member-cut", "tar: truncated archive (a member is cut short)"},
    {Say::InputTarHeaderOversized, "input.tar-header-oversized", "tar: oversized extended header ({size} bytes)"},
    {Say::InputTarExtendedHeaderCut, "input.tar-extended-header-cut", "tar: truncated archive (in an extended header)"},
    {Say::InputTarHeaderCut, "input.tar-header-cut", "tar: truncated archive (a header is cut short at byte {offset})"},
    {Say::InputTarBadChecksum, "input.tar-bad-checksum", "tar: damaged archive (bad header checksum at byte {offset})"},
    {Say::InputTarBadSize, "input.tar-bad-size", "tar: damaged archive (bad size field at byte {offset})"},
    {Say::InputTarSparseHeaderCut, "input.tar-sparse-header-cut",
     "tar: truncated archive (a sparse header is cut short at byte {offset})"},
    {Say::InputNameCut, "input.name-cut", "{name}...(name of {size} bytes cut)"},
    {Say::InputZip, "input.zip", "zip: {message}"},
    {Say::InputZipReadError, "input.zip-read-error", "zip: read error"},
    {Say::InputZipUnreadable, "input.zip-unreadable", "zip: unreadable"},
    {Say::InputZipEncrypted, "input.zip-encrypted", "zip: encrypted member"},
    {Say::InputZipCentralOnly, "input.zip-central-only",
     "zip: listed only in the central directory (no local entry reading front to back); not read"},
    {Say::InputUnnamedMember, "input.unnamed-member", "<unnamed member>"},
    {Say::InputNothingReadable, "input.nothing-readable", "nothing readable"},
    {Say::InputCannotRead, "input.cannot-read", "{count} input(s) could not be read (listed in the report)"},
    {Say::InputSkipped, "input.skipped", "skipped {path}: {reason}"},
    {Say::InputLinesCut, "input.lines-cut", "{count} lines longer than --max-line-bytes were cut"},
    {Say::InputNoCheckInput, "input.no-check-input",
     "nothing to check: no snapshot (dtriage snapshot-script), no smoke-test line and no training-log line a check reads among the inputs"},
    {Say::InputNoSuchFile, "input.no-such-file", "{path}: no such file"},
    {Say::InputLeftOut, "input.left-out", "{problem} (left out)"},
    {Say::InputMoreLeftOut, "input.more-left-out", "{path}: {count} more lines that are not scan results (left out)"},
    {Say::InputHalfWrittenLine, "input.half-written-line",
     "{path}: the last line is half-written (left out; --resume that scan)"},
    {Say::InputJobsCountedOnce, "input.jobs-counted-once",
     "{count} result lines were of jobs already counted (the same job in two files or twice in one): each job counted once"},
    {Say::InputNotJob, "input.not-job", "not a file or folder (a FIFO, socket or device)"},
    {Say::InputNoRecognisedLine, "input.no-recognised-line", "not a job: a lone file with no line that any parser recognises"},
    {Say::InputNoJobs, "input.no-jobs", "{root}: no jobs below it (each file or folder directly below a ROOT is one job)"},
    {Say::InputOwnOutput, "input.own-output", "this scan's own output (-o or --summary), not a job"},
    {Say::InputNotResultLine, "input.not-result-line", "{path}:{line}: not a scan result line"},
    {Say::InputKeptAsItIs, "input.kept-as-it-is", "{problem} (kept as it is)"},
    {Say::InputCannotCutLine, "input.cannot-cut-line", "cannot cut the half-written last line of {path}: {error}"},
    {Say::InputDroppedHalfLine, "input.dropped-half-line", "{path}: dropped a half-written last line (a scan was stopped while writing it)"},
    {Say::InputJobTwice, "input.job-twice", "{path}:{line}: job {job} already came from {first}:{at} (kept that one)"},
    {Say::OutputFileError, "output.file-error", "{path}: {error}"},
    {Say::OutputCannotWrite, "output.cannot-write", "cannot write {what}"},
    {Say::OutputWriteFailed, "output.write-failed", "cannot write the output: {error}"},
    {Say::VerdictSameOn, "verdict.same-on", " (the same on {nodes})"},
    {Say::VerdictSameOnMany, "verdict.same-on-many", " (the same on {count} nodes: {nodes})"},
    {Say::ReportStatusFailed, "report.status-failed", "failed"},
    {Say::ReportStatusHealthy, "report.status-healthy", "healthy"},
    {Say::ReportStatusInconclusive, "report.status-inconclusive", "inconclusive"},
    {Say::ReportVerdictLine, "report.verdict-line", "verdict: {status}"},
    {Say::ReportEvidenceMore, "report.evidence-more", "... {count} more"},
    {Say::ReportFirstAt, "report.first-at", "(first: {where})"},
    {Say::ReportFirst, "report.first", "first {where}"},
    {Say::ReportFirstLine, "report.first-line", "first line"},
    {Say::DescribeLine, "describe.line", "{count} line"},
    {Say::DescribeLines, "describe.lines", "{count} lines"},
    {Say::DescribeOnNode, "describe.on-node", " on {count} node"},
    {Say::DescribeOnNodes, "describe.on-nodes", " on {count} nodes"},
    {Say::DescribeDevice, "describe.device", ", device {devices}"},
    {Say::DescribeDevices, "describe.devices", ", devices {devices}"},
    {Say::RanksRest, "ranks.rest", "{count} more: {parts}"},
    {Say::RanksRestPart, "ranks.rest-part", "{count} {ending} (ranks {ranks})"},
    {Say::RanksShown, "ranks.shown", "{count} shown"},
    {Say::ColNode, "col.node", "node"},
    {Say::ColProcs, "col.procs", "procs"},
    {Say::ColProcesses, "col.processes", "processes"},
    {Say::ColDevices, "col.devices", "devices"},
    {Say::ColErrors, "col.errors", "errors"},
    {Say::ColRanks, "col.ranks", "ranks"},
    {Say::ColFirstError, "col.first-error", "first error"},
    {Say::ColRank, "col.rank", "rank"},
    {Say::ColLocal, "col.local", "local"},
    {Say::ColLocalRank, "col.local-rank", "local rank"},
    {Say::ColDevice, "col.device", "device"},
    {Say::ColPids, "col.pids", "pids"},
    {Say::ColStep, "col.step", "step"},
    {Say::ColEnding, "col.ending", "ending"},
    {Say::ColDetail, "col.detail", "detail"},
    {Say::ColLine, "col.line", "line"},
    {Say::InputsCounts, "inputs.counts", "{files} files, {bytes} bytes, {lines} lines, {events} events"},
    {Say::InputsNotKept, "inputs.not-kept", " (+{count} informational ones that added no fact)"},
    {Say::InputsFolded, "inputs.folded", ", {count} repeated lines folded"},
    {Say::InputsCut, "inputs.cut", ", {count} long lines cut"},
    {Say::InputsDropped, "inputs.dropped", ", {count} events not kept (event memory used up: --max-event-memory)"},
    {Say::LabelUnreadable, "label.unreadable", "unreadable"},
    {Say::LabelSkipped, "label.skipped", "skipped"},
    {Say::LabelRuleProblem, "label.rule-problem", "rule problem"},
    {Say::MarkdownRule, "markdown.rule", "Rule {rule}"},
    {Say::MarkdownRank, "markdown.rank", ", rank {rank}"},
    {Say::MarkdownInputsHead, "markdown.inputs-head", "{files} files, {lines} lines, {unreadable} unreadable"},
    {Say::MarkdownInputsDetail, "markdown.inputs-detail", "bytes: {bytes}, events: {events}, long lines cut: {cut}"},
    {Say::MarkdownFolded, "markdown.folded", ", repeated lines folded: {count}"},
    {Say::MarkdownDropped, "markdown.dropped", ", events not kept (--max-event-memory used up): {count}"},
    {Say::ReportBy, "report.by", "Report by dtriage {version}."},
    {Say::HtmlRule, "html.rule", "rule {rule}"},
    {Say::HtmlRank, "html.rank", "rank {rank}"},
    {Say::HtmlAnalysed, "html.analysed", "analysed {when}"},
    {Say::HeadingTimeline, "heading.timeline", "Timeline"},
    {Say::LegendRoot, "legend.root", "root cause"},
    {Say::LegendExplained, "legend.explained", "explained by it"},
    {Say::LegendFirstError, "legend.first-error", "first error of a node"},
    {Say::LegendUndated, "legend.undated", "{count} mark(s) without a time are not drawn"},
    {Say::HtmlInputs, "html.inputs", "{files} files, {bytes} bytes, {lines} lines, {events} events, {cut} long lines cut{rest}."},
    {Say::HtmlDropped, "html.dropped", ", {count} events not kept (--max-event-memory used up)"},
    {Say::TimelineFirstError, "timeline.first-error", "first error: {where}"},
    {Say::WhyAt, "why.at", " at {time}"},
    {Say::WhyAtTime, "why.at-time", "at {time}"},
    {Say::WhyLineOfOutput, "why.line-of-output", "line {line} of the same output"},
    {Say::WhyAnotherNode, "why.another-node", "another node"},
    {Say::WhyUnnamedNode, "why.unnamed-node", "an unnamed node"},
    {Say::DetailSeq, "detail.seq", "seq {seq}"},
    {Say::DetailRan, "detail.ran", "ran {seconds} s"},
    {Say::DetailTimeout, "detail.timeout", "timeout {seconds} s"},
    {Say::WhereOnNode, "where.on-node", "{where} on {node}"},
    {Say::ListAnd, "list.and", " and "},
    {Say::ListComma, "list.comma", ", "},
    {Say::ListMore, "list.more", " (+{count} more)"},
    {Say::PunctColon, "punct.colon", ": "},
    {Say::PunctColonEnd, "punct.colon-end", ":"},
    {Say::PunctComma, "punct.comma", ", "},
    {Say::SummaryUndated, "summary.undated", "undated"},
    {Say::SummaryJobOne, "summary.job-one", "{count} job"},
    {Say::SummaryJobMany, "summary.job-many", "{count} jobs"},
    {Say::SummaryCulpritOf, "summary.culprit-of", "{culprit} of {ran} jobs it ran"},
    {Say::SummaryNodeDevice, "summary.node-device", "{node} device {device}"},
    {Say::SummaryMoreAfterList, "summary.more-after-list", " and {count} more"},
    {Say::SummaryFilter, "summary.filter", "jobs of {since} .. {until}; {jobs} outside (or undated) left out"},
    {Say::SummaryJobsLine, "summary.jobs-line", "jobs: {count}"},
    {Say::SummaryDatedByFiles, "summary.dated-by-files", "{jobs} dated by their files' modification time (no date in their logs)"},
    {Say::SummaryCategories, "summary.categories", "categories:"},
    {Say::SummaryRecurring, "summary.recurring", "recurring root causes (most jobs first):"},
    {Say::SummaryJobWord, "summary.job-word", "job"},
    {Say::SummaryJobsWord, "summary.jobs-word", "jobs"},
    {Say::SummarySeen, "summary.seen", "seen: {when}"},
    {Say::SummaryOnNodes, "summary.on-nodes", "; on {nodes}"},
    {Say::SummaryExamples, "summary.examples", "e.g. {jobs}"},
    {Say::SummaryBadNodes, "summary.bad-nodes", "nodes the culprits were on (most failed jobs first):"},
    {Say::SummaryMoreNodes, "summary.more-nodes", "and {count} more nodes"},
    {Say::SummaryBadDevices, "summary.bad-devices", "devices the culprits were on:"},
    {Say::SummaryMoreDevices, "summary.more-devices", "and {count} more devices"},
    {Say::SummaryWeeks, "summary.weeks", "failed jobs by week:"},
    {Say::SummaryNotAnalysed, "summary.not-analysed", "not analysed ({count}):"},
    {Say::SummaryMore, "summary.more", "and {count} more"},
}};

const Entry& entry(Say key) { return kEnglish[static_cast<std::size_t>(key)]; }

std::atomic<int> default_lang{static_cast<int>(Lang::En)};
thread_local int scoped_lang = -1;  // -1: none

}  // namespace

Lang language() { return static_cast<Lang>(scoped_lang >= 0 ? scoped_lang : default_lang.load(std::memory_order_relaxed)); }
void set_default_language(Lang lang) { default_lang.store(static_cast<int>(lang), std::memory_order_relaxed); }

LangScope::LangScope(Lang lang) : saved_(scoped_lang) { scoped_lang = static_cast<int>(lang); }
LangScope::~LangScope() { scoped_lang = saved_; }

std::optional<Lang> parse_language(std::string_view name) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  std::string n;
  for (const char c : name) n += lower(c);
  if (n == "en" || n.rfind("en_", 0) == 0 || n.rfind("en-", 0) == 0 || n == "c" || n == "posix") return Lang::En;
  if (n == "zh" || n.rfind("zh_", 0) == 0 || n.rfind("zh-", 0) == 0) return Lang::Zh;
  return std::nullopt;
}

Lang language_from_environment() {
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);
    if (v == nullptr || *v == 0) continue;
    const std::optional<Lang> lang = parse_language(std::string_view(v).substr(0, std::string_view(v).find_first_of(".@")));
    return lang.value_or(Lang::En);
  }
  return Lang::En;
}

std::string_view language_name(Lang lang) { return lang == Lang::Zh ? "zh" : "en"; }

std::string_view say_name(Say key) { return entry(key).name; }

std::string_view say_template(Say key, Lang lang) {
  if (lang == Lang::Zh) {
    const std::string_view zh = detail::kChinese[static_cast<std::size_t>(key)].text;
    if (!zh.empty()) return zh;
  }
  return entry(key).text;
}

std::string fill_placeholders(std::string_view t, std::initializer_list<Arg> args) {
  std::string out;
  out.reserve(t.size() + 32);
  for (std::size_t i = 0; i < t.size();) {
    if (t[i] == '{') {
      const std::size_t close = t.find('}', i);
      if (close != std::string_view::npos) {
        const std::string_view name = t.substr(i + 1, close - i - 1);
        const Arg* hit = nullptr;
        for (const Arg& a : args)
          if (a.name == name) hit = &a;
        if (hit != nullptr) {
          out += hit->value;
          i = close + 1;
          continue;
        }
      }
    }
    out += t[i++];
  }
  return out;
}

std::string say_in(Lang lang, Say key, std::initializer_list<Arg> args) { return fill_placeholders(say_template(key, lang), args); }

std::string say(Say key, std::initializer_list<Arg> args) { return say_in(language(), key, args); }

}  // namespace dtriage::base
