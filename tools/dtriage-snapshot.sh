#!/usr/bin/env bash
# dtriage node snapshot: what one node looks like before a distributed job is launched on it.
#
# Needs only bash and coreutils. Every other tool (nvidia-smi, npu-smi, python3, git, ss, ps) is
# optional: a missing one is recorded as missing, never an error. Writes one text file: a header,
# then sections, each opened by one line
#     @@ NAME STATUS $ COMMAND
# (STATUS: ok, exit=N, missing, timeout or skipped) and followed by what COMMAND printed.
# `dtriage check` reads these files; `dtriage analyze` uses one found inside a dump.
#
# Usage:
#   dtriage snapshot-script > snap.sh
#   bash snap.sh [--out DIR] [--code DIR] [--config FILE]... [--port N] [--addr HOST]
#                [--python PY] [--env-file FILE]
#   ssh node1 bash -s -- --code /work/train < snap.sh > node1.snapshot
#   srun --ntasks-per-node=1 bash snap.sh --out snapshots/
# Launch variables are read from the environment (run it where the job will run, e.g. in the batch
# script before torchrun) or from --env-file (KEY=VALUE lines). Values of variables whose names
# look secret (KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL, AUTH) are masked.

set -u
export LC_ALL=C

out_dir=""
code_dir="$PWD"
configs=()
port=""
addr=""
python_bin="${DTRIAGE_PYTHON:-python3}"
env_file=""
step_timeout="${DTRIAGE_SNAPSHOT_TIMEOUT:-20}"
# CANN's set_env.sh exports ASCEND_HOME_PATH (the toolkit); the driver sits beside it by default.
ascend_toolkit="${ASCEND_HOME_PATH:-/usr/local/Ascend/ascend-toolkit/latest}"
ascend_driver="${DTRIAGE_ASCEND_DRIVER:-/usr/local/Ascend/driver}"

while [ $# -gt 0 ]; do
  case "$1" in
    --out) out_dir="$2"; shift 2 ;;
    --code) code_dir="$2"; shift 2 ;;
    --config) configs+=("$2"); shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --addr) addr="$2"; shift 2 ;;
    --python) python_bin="$2"; shift 2 ;;
    --env-file) env_file="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" 2>/dev/null | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "dtriage-snapshot: unknown option: $1" >&2; exit 2 ;;
  esac
done

have() { command -v "$1" >/dev/null 2>&1; }

# One section: run COMMAND... under a time limit and record its status and output.
section() {
  local name="$1"; shift
  if ! have "$1"; then
    printf '@@ %s missing $ %s\n' "$name" "$*"
    return
  fi
  local output rc
  if have timeout; then
    output=$(timeout "$step_timeout" "$@" 2>&1 </dev/null); rc=$?
  else
    output=$("$@" 2>&1 </dev/null); rc=$?
  fi
  local status="ok"
  if [ "$rc" -eq 124 ] && have timeout; then status="timeout"; elif [ "$rc" -ne 0 ]; then status="exit=$rc"; fi
  printf '@@ %s %s $ %s\n' "$name" "$status" "$*"
  [ -n "$output" ] && printf '%s\n' "$output"
}

# A section whose content is a file; missing when the file is not there.
file_section() {
  local name="$1" path="$2"
  if [ -r "$path" ]; then
    printf '@@ %s ok $ cat %s\n' "$name" "$path"
    cat "$path" 2>&1
    printf '\n'
  else
    printf '@@ %s missing $ cat %s\n' "$name" "$path"
  fi
}

# A section computed here (a shell function); STATUS is what the function returned.
computed() {
  local name="$1" what="$2"; shift 2
  local output rc
  output=$("$@" 2>&1); rc=$?
  local status="ok"
  [ "$rc" -ne 0 ] && status="exit=$rc"
  printf '@@ %s %s $ %s\n' "$name" "$status" "$what"
  [ -n "$output" ] && printf '%s\n' "$output"
}

# ---- launch variables ----
declare -A launch_env=()
load_env() {
  local line key value
  while IFS= read -r line; do
    case "$line" in ''|'#'*) continue ;; esac
    line="${line#export }"
    key="${line%%=*}"
    value="${line#*=}"
    [ "$key" = "$line" ] && continue
    value="${value%\"}"; value="${value#\"}"; value="${value%\'}"; value="${value#\'}"
    launch_env["$key"]="$value"
  done
}
if [ -n "$env_file" ]; then
  if [ -r "$env_file" ]; then load_env < "$env_file"; else echo "dtriage-snapshot: cannot read $env_file" >&2; fi
fi
while IFS= read -r -d '' entry; do
  key="${entry%%=*}"
  [ -n "${launch_env[$key]+x}" ] || launch_env["$key"]="${entry#*=}"
done < <(env -0 2>/dev/null)

launch_vars() {
  local key value
  for key in $(printf '%s\n' "${!launch_env[@]}" | sort); do
    case "$key" in
      RANK|LOCAL_RANK|WORLD_SIZE|LOCAL_WORLD_SIZE|GROUP_RANK|NODE_RANK|NNODES|NPROC_PER_NODE|MASTER_ADDR|MASTER_PORT|\
      CUDA_VISIBLE_DEVICES|ASCEND_RT_VISIBLE_DEVICES|ASCEND_VISIBLE_DEVICES|NCCL_*|HCCL_*|GLOO_*|TORCHELASTIC_*|\
      TORCH_NCCL_*|TORCH_DISTRIBUTED_*|PET_*|OMP_NUM_THREADS|SLURM_JOB_ID|SLURM_NODEID|SLURM_PROCID|SLURM_NNODES|\
      SLURM_NTASKS|SLURM_JOB_NODELIST|RANK_TABLE_FILE|RANK_SIZE|RANK_ID|DEVICE_ID) ;;
      *) continue ;;
    esac
    value="${launch_env[$key]}"
    case "$key" in
      *KEY*|*TOKEN*|*SECRET*|*PASSWORD*|*PASSWD*|*CREDENTIAL*|*AUTH*) value="***masked***" ;;
    esac
    case "$value" in *://*:*@*) value="$(printf '%s' "$value" | sed -E 's#(://[^:/@]*):[^@]*@#\1:***masked***@#')" ;; esac
    printf '%s=%s\n' "$key" "$value"
  done
}

[ -n "$port" ] || port="${launch_env[MASTER_PORT]:-}"
port_source="MASTER_PORT"
if [ -z "$port" ]; then port=29500; port_source="torchrun's default"; fi
[ -n "$addr" ] || addr="${launch_env[MASTER_ADDR]:-}"

# ---- the master port: bound here, and by which process ----
port_state() {
  printf 'port=%s\nsource=%s\n' "$port" "$port_source"
  case "$port" in ''|*[!0-9]*) echo "state=invalid"; return 0 ;; esac
  local hex inode="" line pid
  hex=$(printf '%04X' "$port")
  local f
  for f in /proc/net/tcp /proc/net/tcp6; do
    [ -r "$f" ] || continue
    while read -r _ local_addr _ st _ _ _ _ _ ino _; do
      # state 0A = LISTEN; the local address ends in :PORT (hex)
      if [ "$st" = "0A" ] && [ "${local_addr##*:}" = "$hex" ]; then inode="$ino"; break 2; fi
    done < <(tail -n +2 "$f")
  done
  if [ -z "$inode" ]; then echo "state=free"; return 0; fi
  echo "state=bound"
  for pid in /proc/[0-9]*; do
    for line in "$pid"/fd/*; do
      if [ "$(readlink "$line" 2>/dev/null)" = "socket:[$inode]" ]; then
        pid="${pid#/proc/}"
        printf 'pid=%s\n' "$pid"
        printf 'process=%s\n' "$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-200)"
        return 0
      fi
    done
  done
  echo "pid=unknown"
}

# ---- can this node reach MASTER_ADDR:PORT? refused still means the host answered ----
master_reach() {
  printf 'addr=%s port=%s\n' "$addr" "$port"
  if [ -z "$addr" ]; then echo "result=skipped (no MASTER_ADDR)"; return 0; fi
  local err rc
  if have timeout; then
    err=$(timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$addr" "$port" 2>&1); rc=$?
  else
    err=$(bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$addr" "$port" 2>&1); rc=$?
  fi
  if [ "$rc" -eq 0 ]; then echo "result=connected"
  elif [ "$rc" -eq 124 ]; then echo "result=timeout"
  else
    case "$err" in
      *refused*) echo "result=refused" ;;
      *"Name or service not known"*|*"not known"*|*resolve*|*"No address"*) echo "result=unresolved" ;;
      *unreachable*) echo "result=unreachable" ;;
      *) echo "result=error"; printf 'detail=%s\n' "$(printf '%s' "$err" | tail -n 1)" ;;
    esac
  fi
}

# ---- leftover launchers and training processes ----
leftovers() {
  local pid args self="$$"
  for pid in /proc/[0-9]*; do
    pid="${pid#/proc/}"
    [ "$pid" = "$self" ] && continue
    args=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null) || continue
    case "$args" in
      *dtriage-snapshot*|*"snapshot-script"*) continue ;;
      *torchrun*|*torch.distributed.run*|*torch.distributed.launch*|*deepspeed*|*"accelerate launch"*|*torch_npu*|*megatron*|*pretrain_*.py*|*train*.py*)
        printf 'pid=%s %s\n' "$pid" "$(printf '%s' "$args" | cut -c1-300)" ;;
    esac
  done
  return 0
}

# ---- Python, torch and the accelerator as torch sees them ----
python_probe() {
  "$python_bin" - <<'PY'
import platform, sys
print("python=" + platform.python_version())
try:
    import torch
except Exception as e:
    print("torch=missing (%s)" % type(e).__name__)
    sys.exit(0)
print("torch=" + torch.__version__)
print("torch.cuda=" + str(torch.version.cuda))
try:
    v = torch.cuda.nccl.version()
    print("torch.nccl=" + (".".join(str(x) for x in v) if isinstance(v, tuple) else str(v)))
except Exception:
    print("torch.nccl=None")
try:
    print("cuda.available=" + str(torch.cuda.is_available()))
    n = torch.cuda.device_count()
    print("cuda.device_count=%d" % n)
    for i in range(n):
        print("cuda.device.%d=%s" % (i, torch.cuda.get_device_name(i)))
except Exception as e:
    print("cuda.error=" + str(e).splitlines()[0][:200])
try:
    import torch_npu  # noqa: F401
    print("torch_npu=" + getattr(torch_npu, "__version__", "unknown"))
    print("npu.device_count=%d" % torch.npu.device_count())
except ImportError:
    pass
except Exception as e:
    print("npu.error=" + str(e).splitlines()[0][:200])
PY
}

pip_hash() {
  local frozen
  frozen=$("$python_bin" -m pip freeze 2>/dev/null) || return 1
  printf 'sha256=%s\n' "$(printf '%s\n' "$frozen" | LC_ALL=C sort | sha256sum | cut -d' ' -f1)"
  printf 'packages=%s\n' "$(printf '%s\n' "$frozen" | grep -c .)"
  printf '%s\n' "$frozen" | grep -iE '^(torch|torch[-_]npu|deepspeed|transformers|accelerate|megatron|apex|nvidia-nccl|numpy)[=@ ]' || true
}

code_version() {
  printf 'dir=%s\n' "$code_dir"
  if have git && git -C "$code_dir" rev-parse HEAD >/dev/null 2>&1; then
    printf 'git=%s\n' "$(git -C "$code_dir" rev-parse HEAD)"
    printf 'dirty=%s\n' "$(git -C "$code_dir" status --porcelain 2>/dev/null | grep -c .)"
  else
    local list
    list=$(find "$code_dir" -maxdepth 3 -type f \( -name '*.py' -o -name '*.sh' -o -name '*.yaml' -o -name '*.yml' -o -name '*.json' -o -name '*.toml' \) -size -4M 2>/dev/null | LC_ALL=C sort | head -n 2000)
    if [ -z "$list" ]; then echo "files=0"; return 0; fi
    printf 'sha256=%s\n' "$(printf '%s\n' "$list" | while IFS= read -r f; do sha256sum "$f" | sed "s#  $code_dir/#  #"; done | sha256sum | cut -d' ' -f1)"
    printf 'files=%s\n' "$(printf '%s\n' "$list" | grep -c .)"
  fi
  local c
  for c in ${configs[@]+"${configs[@]}"}; do
    if [ -r "$c" ]; then printf 'config %s sha256=%s\n' "$c" "$(sha256sum "$c" | cut -d' ' -f1)"
    else printf 'config %s unreadable\n' "$c"; fi
  done
}

write_snapshot() {
  printf '# dtriage snapshot 1\n'
  printf '# written by dtriage-snapshot.sh; sections: "@@ NAME STATUS $ COMMAND", then its output\n'
  section time date -u +%Y-%m-%dT%H:%M:%SZ
  section host.name hostname
  section host.fqdn hostname -f
  section host.addresses hostname -I
  section host.os uname -srm
  file_section host.release /etc/os-release
  section host.shm df -Pk /dev/shm
  # NVIDIA
  section nvidia.list nvidia-smi -L
  section nvidia.query nvidia-smi --query-gpu=index,name,memory.total,memory.used,driver_version,pci.bus_id,uuid --format=csv,noheader,nounits
  section nvidia.apps nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader,nounits
  section nvidia.smi nvidia-smi
  section nvidia.topo nvidia-smi topo -m
  # Ascend
  section npu.info npu-smi info
  section npu.topo npu-smi info -t topo
  file_section cann.toolkit "$ascend_toolkit/ascend_toolkit_install.info"
  file_section cann.version "$ascend_toolkit/version.cfg"
  file_section npu.driver "$ascend_driver/version.info"
  # Python and code
  section python.probe "$python_bin" --version
  if have "$python_bin"; then computed python.torch "$python_bin - (torch, CUDA / NCCL, devices)" python_probe; fi
  if have "$python_bin"; then computed python.pip "$python_bin -m pip freeze | sha256sum" pip_hash; fi
  computed code.version "git rev-parse HEAD (or file hashes) in $code_dir" code_version
  # Launch
  computed launch.env "env (launch variables, secrets masked)" launch_vars
  computed launch.port "listening sockets on port $port (/proc/net/tcp)" port_state
  computed launch.master "bash /dev/tcp to ${addr:-MASTER_ADDR}:$port" master_reach
  computed launch.leftovers "launchers and training processes still running (/proc)" leftovers
  printf '@@ end ok $ \n'
}

if [ -n "$out_dir" ]; then
  mkdir -p "$out_dir" || exit 2
  target="$out_dir/$(hostname 2>/dev/null || echo node).snapshot"
  write_snapshot > "$target.tmp" && mv "$target.tmp" "$target" && echo "$target"
else
  write_snapshot
fi
