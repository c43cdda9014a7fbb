// The catalogue of what dtriage says in words of its own: built-in verdict sentences, what the rank
// table says of an ending, report headings. Each sentence has a key and a template with named
// placeholders ({node}, {count}); code asks for it by key and fills it in, so that no stage holds
// the wording and a translation (a second table) changes no code. Rule summaries live in the rule
// pack. The messages of the pre-launch checks and the reasons an input could not be read live here
// too; only identifiers (check names, categories, flag names inside a sentence) stay in code.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace dtriage::base {

enum class Say : std::uint16_t {
  // verdicts no rule wrote
  VerdictUnknownLead,        // {where} {message}
  VerdictUnknownLeadOnNode,  // {where} {node} {message}
  VerdictCatalogueCause,        // {where} {message} {meaning} (where: file:line[ on node])
  VerdictCatalogueConsequence,  // {where} {message} {of}
  WhyCatalogueRefines,          // {message} {category} {meaning} {entry}
  WhyCatalogueBeforeExit,       // {where} {message} {category} {meaning} {entry}
  WhyCatalogueBeforeExitOf,     // {where} {message} {category} {of} {entry}
  VerdictNothingRecognised,
  VerdictStoppedBeforeTraining,  // {nodes}
  VerdictHealthyLines,           // {count}
  VerdictStoppedAtLimit,         // {what}
  VerdictHealthyEvents,          // {count}
  VerdictHealthyNcclWarnings,    // {where}
  VerdictRecovered,              // {what}
  VerdictStoppedAfterSteps,      // {steps} {what}
  FindingEarlierAttempt,         // (appended to a finding's summary)
  FindingCutShort,               // (appended to a finding's summary)
  // how a rank ended (the rank table's detail)
  RankSignal,          // {signal}
  RankSignalOom,       // {signal}
  RankSignalCrash,     // {signal}
  RankExit,            // {code}
  RankStopped,         // {signal}
  // why the culprit is the culprit (correlate/culprit.cpp)
  WhyFirst,            // {rank} {what} {when}
  WhyLater,            // {count} {rank} {what} {when}
  WhyOnly,             // {rank} {what} {when}
  WhyVictims,          // {count}
  WhyDistinct,         // {rank} {what} {count} {common}
  WhyStronger,         // {rank} {what} {others}
  WhyOwnBeforeKill,    // {rank} {what} {others}
  WhyRecurring,        // {rank} {what} {others}
  WhyRecurringFirst,   // {exception} {node} {rank} {local} {path} {line}
  WhyUntiedException,  // {exception} {node} {ranks} {others}
  WhyRankEnding,       // {rank} {what}
  WhySilentStopped,    // {count} {rank} {signal}
  WhySilentRunning,    // {count} {rank}
  WhySilentAbsent,     // {count} {rank}
  WhyQuietNodeRank,    // {count} {node} {rank}
  WhyLateNodeRank,     // {count} {node} {rank}
  WhyShortNodeRank,    // {node} {reported} {procs} {rank}
  WhyShortNodeTie,     // {node} {reported} {procs} {missing} {ranks}
  WhySilentTie,        // {count} {node} {ranks}
  WhyFirstInStream,    // {ranks} {rank} {what}
  WhyLate,             // {count} {rank}
  WhyPlainVictims,     // {count} {node}
  WhyPidVictims,       // {count} {node}
  WhyTie,              // {ranks}
  WhyAfterPeerLoss,    // {late} {latewhat} {reporter} {where} {rank} {what}
  // report headings and labels
  HeadingEvidence,
  HeadingConsequences,
  HeadingNodes,
  HeadingRanks,
  HeadingOthers,
  HeadingWhy,
  HeadingInputs,
  LabelFix,
  EvidenceAlsoAt,      // {where}
  EvidenceAlsoAtMore,  // {where} {count}
  // pre-launch checks (check/check.cpp): what each check looks at
  CheckTitleDevices,
  CheckTitleTopology,
  CheckTitleVersions,
  CheckTitleLaunch,
  CheckTitleBinding,
  CheckTitleData,
  // check 1, devices
  CheckNoAccelerator,            // {tools}
  CheckNoDevices,                // {tools} {count}
  CheckDeviceCount,              // {count} {reference}
  CheckMixedModels,              // {models}
  CheckModelCount,               // {count} {model}
  CheckOtherModel,               // {model} {reference}
  CheckSmallerMemory,            // {device} {mib} {model} {largest}
  CheckDeviceHealth,             // {device} {health}
  CheckMemoryHeld,               // {pid} {process} {amount} {where} (fragments below)
  CheckMemoryHeldProcess,        // {process}
  CheckMemoryHeldMib,            // {mib}
  CheckMemoryHeldUnknown,
  CheckMemoryHeldOnDevice,       // {device}
  CheckNprocAboveDevices,        // {nproc} {count}
  CheckNprocAboveVisible,        // {nproc} {count} {var}
  CheckNprocBelowDevices,        // {nproc} {count}
  CheckTorchDevicesVisible,      // {torch} {var} {count}
  CheckTorchDevicesTools,        // {torch} {platform} {count}
  CheckDevicesPass,              // {count} {model} {memory} (fragment below)
  CheckDevicesPassMemory,        // {mib}
  // check 2, topology and reach
  CheckTopologyMissing,
  CheckTopologyRowOne,           // {mine} {nodes} {theirs}
  CheckTopologyRowMany,          // {mine} {nodes} {theirs}
  CheckTopologyRows,             // {rows} {nodes}
  CheckTopologyDiffers,          // {diff}
  CheckTopologyPass,             // {count}
  CheckMasterAnswers,            // {addr}
  CheckMasterRefused,            // {addr}
  CheckMasterNotTested,
  CheckMasterUnreachable,        // {addr} {port} {reach}
  CheckMasterTimeout,            // {addr} {port} {reach}
  CheckShmTooSmall,              // {mib} {count}
  CheckShmSmall,                 // {mib} {count}
  // check 3, versions
  CheckVersionMissing,           // {name}
  CheckVersionDiffersOne,        // {name} {value} {nodes} {reference}
  CheckVersionDiffersMany,       // {name} {value} {nodes} {reference}
  CheckCudaNeedsDriver,          // {runtime} {driver} {cuda}
  CheckCudaNewerThanDriver,      // {runtime} {cuda}
  CheckVariableDiffers,          // {name} {value} {nodes} {reference}
  CheckVariableUnset,
  CheckNoVersions,
  CheckVersionsPass,             // {versions}
  // check 4, launch
  CheckWorldSizeMismatch,        // {world} {nnodes} {nproc} {product}
  CheckWorldSizeAddsUp,          // {world} {nnodes} {nproc}
  CheckWorldSizeImplied,         // {world} {nnodes} {nproc}
  CheckNodeRankOutside,          // {rank} {last}
  CheckMasterAddrDiffers,        // {addr} {reference}
  CheckMasterPortDiffers,        // {port} {reference}
  CheckPortBound,                // {port} {who}
  CheckPortHolderPid,            // {pid}
  CheckPortHolderUnknown,
  CheckPortHolderProcess,        // {who} {process}
  CheckPortFree,                 // {port}
  CheckStillRunning,             // {command}
  CheckNoLaunchVariables,
  CheckNodeRankShared,           // {rank} {nodes}
  CheckTooManySnapshots,         // {count} {nnodes}
  CheckFewerSnapshots,           // {count} {nnodes}
  CheckSmokeWorldSizes,          // {sizes}
  // check 5, binding
  CheckRanksOnOneDevice,         // {ranks} {device}
  CheckRanksOnDeviceZero,        // {ranks} {device}
  CheckSmokeRankFailed,          // {rank} {error}
  CheckSmokeWrongSum,            // {rank} {reduced} {expected}
  CheckBindingPass,              // {ranks} {devices}
  CheckRanksNeverReported,       // {ranks} {world}
  CheckRankOnTwoNodes,           // {rank} {nodes}
  CheckNcclDuplicateGpu,         // {message}
  CheckLogRanksOnOneDevice,      // {ranks} {device}
  CheckLogBindingPass,
  CheckNoBindingInput,
  // check 6, data and checkpoints
  CheckWholeDatasetOne,          // {ranks} {count}
  CheckWholeDatasetMany,         // {ranks} {count}
  CheckSmokeSameBatch,           // {ranks} {batch}
  CheckSmokeSameCheckpoint,      // {ranks} {path}
  CheckLogSameBatch,             // {ranks} {batch}
  CheckLogSameCheckpoint,        // {ranks} {path}
  CheckLogWholeDataset,          // {rank} {count}
  CheckDataPass,
  CheckNoDataInput,
  // any check
  CheckNoSnapshots,
  CheckNothingToCompare,
  CheckNoSection,                // {section}
  // the check report (check/render.cpp)
  CheckReportNodesOne,           // {count}
  CheckReportNodesMany,          // {count}
  CheckReportStatus,             // {status}
  CheckReportResult,             // {status}
  CheckReportFailed,             // {checks}
  CheckReportWarnings,           // {checks}
  CheckReportUnreadable,         // {path} {reason}
  CheckReportUnreadableMarkdown, // {path} {reason}
  CheckValuesNotKept,            // {count} {limit}
  CheckReportJob,
  CheckReportColumns,
  // input error reasons (ingest): why an input, or part of one, was not read
  InputNotReadToEnd,             // {error}
  InputTimeBudget,
  InputTotalLimit,               // {size}
  InputTotalLimitNotRead,
  InputLinesKept,                // {reason}
  InputBinary,
  InputUnsupportedFormat,
  InputManyJobs,
  InputNestedTooDeep,            // {depth}
  InputChangedWhileMerged,       // {path} {line}
  InputTarPaxDamaged,
  InputSnapshotCut,              // {lines} {bytes} {count}
  InputShrank,                   // {read} {size}
  InputSymlinkOutside,           // {target} {root}
  InputBrokenSymlink,            // {error}
  InputSymlinkLoop,
  InputSameDirectory,            // {path}
  InputSameFile,                 // {path}
  InputSameInput,                // {path}
  InputNotRegular,
  // compressed streams (ingest/decompress.cpp)
  InputRatio,                    // {ratio} {out} {in}
  InputRunRatio,                 // {reason}
  InputAllLayers,                // {reason}
  InputInStream,                 // {codec} {reason}
  InputTruncated,
  InputCannotInitialise,         // {library}
  InputCorrupt,                  // {detail}
  InputCorruptCode,              // {code}
  InputCorruptLibraryCode,       // {library} {code}
  InputInflateFailed,
  InputZstdWindow,               // {log}
  InputXzMemory,                 // {limit}
  InputGarbageSkipped,           // {count} {offset}
  InputGarbageAtEnd,             // {count} {offset}
  InputGarbageTooLong,           // {count} {offset}
  // archives (ingest/tar.cpp, the zip walk in ingest.cpp)
  InputLinkInArchive,
  InputNotRegularInArchive,
  InputAfterMembers,             // {reason} {count}
  InputPathAfterMembers,         // {path} {count}
  InputRestOfArchive,            // {reason}
  InputTarMemberCut,
  InputTarHeaderOversized,       // {size}
  InputTarExtendedHeaderCut,
  InputTarHeaderCut,             // {offset}
  InputTarBadChecksum,           // {offset}
  InputTarBadSize,               // {offset}
  InputTarSparseHeaderCut,       // {offset}
  InputNameCut,                  // {name} {size}
  InputZip,                      // {message}
  InputZipReadError,
  InputZipUnreadable,
  InputZipEncrypted,
  InputZipCentralOnly,
  InputUnnamedMember,
  // what the command line says of its inputs and output (cli)
  InputNothingReadable,
  InputCannotRead,               // {count}
  InputSkipped,                  // {path} {reason}
  InputLinesCut,                 // {count}
  InputNoCheckInput,
  InputNoSuchFile,               // {path}
  InputLeftOut,                  // {problem}
  InputMoreLeftOut,              // {count} {path}
  InputHalfWrittenLine,          // {path}
  InputJobsCountedOnce,          // {count}
  // scan result files and scan folders (batch)
  InputNotJob,
  InputNoRecognisedLine,
  InputNoJobs,                    // {root}
  InputOwnOutput,
  InputNotResultLine,            // {path} {line}
  InputKeptAsItIs,               // {problem}
  InputMoreKeptAsTheyAre,        // {path} {count}
  InputCannotCutLine,            // {path} {error}
  InputDroppedHalfLine,          // {path}
  InputJobTwice,                 // {path} {line} {job} {first} {at}
  OutputFileError,               // {path} {error}
  OutputCannotWrite,             // {what}
  OutputWriteFailed,             // {error}
  // added with the Chinese table (kept last while the translation of the rows above is drafted)
  VerdictSameOn,                 // {nodes}  (appended to a verdict)
  VerdictSameOnMany,             // {count} {nodes}
  // the words of the reports (report/*.cpp), and of the rank table's details (correlate)
  ReportStatusFailed,
  ReportStatusHealthy,
  ReportStatusInconclusive,
  ReportVerdictLine,
  ReportEvidenceMore,
  ReportFirstAt,
  ReportFirst,
  ReportFirstLine,
  DescribeLine,
  DescribeLines,
  DescribeOnNode,
  DescribeOnNodes,
  DescribeDevice,
  DescribeDevices,
  RanksRest,
  RanksRestPart,
  RanksShown,
  ColNode,
  ColProcs,
  ColProcesses,
  ColDevices,
  ColErrors,
  ColRanks,
  ColFirstError,
  ColRank,
  ColLocal,
  ColLocalRank,
  ColDevice,
  ColPids,
  ColStep,
  ColEnding,
  ColDetail,
  ColLine,
  InputsCounts,
  InputsNotKept,
  InputsFolded,
  InputsCut,
  InputsDropped,
  LabelUnreadable,
  LabelSkipped,
  LabelRuleProblem,
  MarkdownRule,
  MarkdownRank,
  MarkdownInputsHead,
  MarkdownInputsDetail,
  MarkdownFolded,
  MarkdownDropped,
  ReportBy,
  HtmlRule,
  HtmlRank,
  HtmlAnalysed,
  HeadingTimeline,
  LegendRoot,
  LegendExplained,
  LegendRelated,
  LegendFirstError,
  LegendUndated,
  LegendPlaced,                  // {count}
  TimelinePlaced,                // {line}
  HtmlInputs,
  HtmlDropped,
  TimelineFirstError,
  WhyAt,
  WhyAtTime,
  WhyLineOfOutput,
  WhyAnotherNode,
  WhyUnnamedNode,
  DetailSeq,
  DetailRan,
  DetailTimeout,
  WhereOnNode,                   // {where} {node}
  ListAnd,                       // between the last two items of a list
  ListComma,                     // between the others
  ListMore,                      // {count}
  PunctColon,                    // after a label, before its text
  PunctColonEnd,                 // after a heading that ends its line
  PunctComma,                    // between the parts of one line
  // the summary of many jobs (batch.cpp)
  SummaryUndated,
  SummaryJobOne,
  SummaryJobMany,
  SummaryCulpritOf,
  SummaryNodeDevice,
  SummaryMoreAfterList,
  SummaryFilter,
  SummaryJobsLine,
  SummaryDatedByFiles,
  SummaryCategories,
  SummaryRecurring,
  SummaryJobWord,
  SummaryJobsWord,
  SummarySeen,
  SummaryOnNodes,
  SummaryExamples,
  SummaryBadNodes,
  SummaryMoreNodes,
  SummaryBadDevices,
  SummaryMoreDevices,
  SummaryWeeks,
  SummaryNotAnalysed,
  SummaryMore,
  SummaryChanges,
  SummaryNoChange,
  SummaryNotCompared,         // {jobs}
  // diff (diff/diff.cpp)
  DiffOutcomeFailed,         // {status} {category} {summary}
  DiffOutcomeFailedPlain,    // {status} {summary}
  DiffOutcomeHealthy,        // {summary}
  DiffWhatChanged,           // {key} {good} {bad} {outcome}
  DiffNprocChanged,          // {bad} {devices} {good} {outcome}
  DiffNotTied,               // {outcome} {category} {changes}
  DiffMostRelevant,          // {what} {outcome}
  DiffOtherNodes,            // {count}
  DiffNodesAdded,            // {count}
  DiffNodesRemoved,          // {count}
  DiffNodesAddedRemoved,     // {added} {removed}
  DiffNoChangeFirstError,    // {text} {where}
  DiffNoChangeNoError,       // {outcome}
  DiffNotShown,
  DiffNoProgress,
  DiffStep,                  // {step}
  DiffStepOf,                // {step} {steps}
  DiffFinished,
  DiffConfiguration,
  DiffNoConfigChange,
  DiffAllOtherNodes,         // {count}
  DiffNodeAdded,             // {node}
  DiffNodeRemoved,           // {node}
  DiffOneSided,
  DiffWhereStopped,          // {good} {bad}
  DiffPercentOfGood,         // {percent}
  DiffNewMessages,           // {count}
  DiffGoneMessages,          // {count}
  DiffTableConfiguration,
  DiffTableNoChange,
  DiffTableNew,              // {count}
  DiffTableGone,             // {count}
  DiffTableNone,
  DiffAdded,                 // {node}
  DiffRemoved,               // {node}
  DiffColPath,
  DiffColVerdict,
  DiffColProgress,
  DiffColLevel,
  DiffColCount,
  DiffColTemplate,
  DiffColFirst,
  DiffColNode,
  DiffHeading,
  DiffStatusCategory,        // {status} {category}
  // summary in Markdown and HTML (batch/batch.cpp)
  SumTitle,                  // {count}
  SumColCategory,
  SumColJobs,
  SumColShare,
  SumRecurringHeading,
  SumCausesHeading,
  SumColCause,
  SumColSeen,
  SumColExamples,
  SumOn,                     // {nodes}
  SumOnLine,                 // {nodes}
  SumNodesHeading,
  SumDevicesHeading,
  SumColNode,
  SumColDevice,
  SumColCulpritJobs,
  SumColCategories,
  SumWeeksHeading,
  SumColWeek,
  SumNotAnalysedHeading,     // {count}
  SumColJob,
  SumColStatus,
  SumColReason,
  SumChartCategories,
  SumChartWeeks,
  SumChartOther,                 // {count}
  SumChangesHeading,
  SumColChange,
  // culprit (correlate/culprit.cpp), added after the rest
  WhySameSecond,             // {count} {rank} {what} {when}
  WhyOutOfStep,              // {count} {common} {rank} {what}
  DesyncCollective,          // {op} {seq}
  WhyEnqueuedOutOfStep,      // {count} {common} {rank} {what}
  WhyFirstInStreamUndated,   // {ranks} {rank} {what}
  WhyUnordered,              // {count} {rank} {what}
  WhyOnlyOneOnRootNode,      // {ranks} {node} {rank}
  WhyAliveAfter,             // {late} {latewhat} {line} {rank} {at} {path} {first} {what}
  // usage errors (cli/cli.cpp)
  VerdictRepeated,           // {where}
  VerdictCutShort,           // {where}
  WhyDesyncReport,           // {reporter} {rank} {what}
  WhyDesyncReportUnranked,   // {rank} {what}
  WhyFingerprintMismatch,    // {reporters} {reporter} {rank} {what}
  WhyUntiedSpokeAfter,       // {exception} {node} {alive} {path} {line} {rank} {others}
  WhyOutsideTable,           // {late} {latewhat} {node} {first} {what}
  WhyOwnReportBefore,        // {late} {latewhat} {node} {first} {what}
  WhyC10dOrder,              // {order} {node} {rank}
  WhyRootLineRank,           // {where} {rank}
  WhyOnlyMissingTimeout,     // {count} {rank}
  WhyRootCauseRowOnly,       // {node} {rank}
  WhyRootCauseRowFirst,      // {node} {rank}
  WhyRuleRank,               // {rank} {title}
  WhyLeadLineRank,           // {where} {rank}
  WhyC10dOrderLocal,         // {order} {node} {rank} {local}
  VerdictOtherFailuresOn,    // {count} {nodes}  (appended to a verdict)
  CliNotACommand,            // {word} {commands}
  CliNotACommandNear,        // {word} {near} {commands}
  CliNoSuchOption,           // {command} {option} {near}
  CliNothingAnalysed,        // {path} {reason}
  CliNotExpected,            // {args}
  CliUsageHint,
  // scan's closing line (batch/scan.cpp)
  ScanDoneIn,                // {jobs} {seconds}
  ScanCounts,                // {counts}
  ScanCount,                 // {count} {status}: one status's count in ScanCounts
  ScanStatusError,           // a job that could not be analysed
  ScanDoneBefore,            // {count}
  ScanWrote,                 // {files}
  ScanReportsIn,             // {dir}
  ScanResuming,              // {done} {count}
  kCount  // not a sentence
};

struct Arg {
  std::string_view name;
  std::string value;
};

// The language sentences are said in. English is the reference: JSON carries it beside the
// chosen language's sentence, and everything that groups or compares (scan fingerprints, diff)
// reads English.
enum class Lang : std::uint8_t { En, Zh };

// The language of this thread: its LangScope's, else the process's default (English until
// set_default_language).
Lang language();
void set_default_language(Lang lang);
// "en" / "zh" (and zh_CN, zh-TW, ...); nullopt for anything else.
std::optional<Lang> parse_language(std::string_view name);
// The language LC_ALL, LC_MESSAGES or LANG asks for (the first one set, as setlocale reads them):
// zh for a zh_* locale, else English.
Lang language_from_environment();
std::string_view language_name(Lang lang);  // "en", "zh"

// Says everything on this thread in `lang` while it lives (the analysis says its sentences twice:
// in English, and in the language asked for).
class LangScope {
 public:
  explicit LangScope(Lang lang);
  ~LangScope();
  LangScope(const LangScope&) = delete;
  LangScope& operator=(const LangScope&) = delete;

 private:
  int saved_;
};

// The sentence for `key` with each {name} replaced by its argument's value (a placeholder with no
// argument is left as it is, so that a test finds it).
std::string say(Say key, std::initializer_list<Arg> args = {});
// The same in a given language.
std::string say_in(Lang lang, Say key, std::initializer_list<Arg> args = {});
// The text's {name} placeholders filled from `args` (what say does with a catalogue's template).
std::string fill_placeholders(std::string_view text, std::initializer_list<Arg> args);
// The key's name ("verdict.unknown-lead") and its template, for tests and translators.
std::string_view say_name(Say key);
std::string_view say_template(Say key, Lang lang = Lang::En);

}  // namespace dtriage::base
