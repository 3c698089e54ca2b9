#!/bin/sh
# mpi_gpus.sh: each rank of a node knows its local rank, as the launcher
# says and MPI agrees, and the summary records it with the CUDA devices it
# took (sm_gpu.h). Under mpirun -np 2 (Open MPI): rank r is local rank r of
# 2, read from OMPI_COMM_WORLD_LOCAL_RANK; from Hydra's MPI_LOCALRANKID when
# only that is set; from MPI when the launcher's variable says something
# else. There is no GPU here: no device is chosen (a CUDA build sees 0, a
# plain one has no CUDA), and every run gives the single-rank checksum. The
# split of a node's devices between ranks is tests/unit/test_gpu's.
. "$(dirname "$0")/../lib.sh"
mpi_setup
PY=${PYTHON3:-/usr/bin/python3}
if ! "$PY" -c "import json" 2> /dev/null; then echo "no python3: skipped"; exit 77; fi
PROB="--metric ccc --synthetic random --num-vector 40 --num-field 64 --seed 3"
CUDA_BUILD=0
grep -q "define SM_USE_CUDA 1" "$top_builddir/config.h" && CUDA_BUILD=1

# shellcheck disable=SC2086
run_ok "one rank" "$STARMET" compute --quiet $PROB --summary "$T/one.json"
REF=$(cks "$T/one.json")

# placed NAME SUMMARY FROM-0 FROM-1: ranks 0 and 1 are local ranks 0 and 1
# of 2, read from FROM-r; no CUDA device chosen; the single-rank checksum
placed() {
  name=$1 sum=$2
  if ! out=$("$PY" - "$sum" "$3" "$4" "$CUDA_BUILD" 2>&1 << 'EOF'
import json, sys
summary, from0, from1, cuda = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
d = json.load(open(summary))
g = d["runtime"]["gpus"]
errs = []
if [x["rank"] for x in g] != [0, 1]:
    errs.append(f"ranks {[x['rank'] for x in g]}, not [0, 1]")
for x, want_from in zip(g, (from0, from1)):
    r = x["rank"]
    if (x["local_rank"], x["local_size"]) != (r, 2):
        errs.append(f"rank {r}: local rank {x['local_rank']} of {x['local_size']}, not {r} of 2")
    if x["local_rank_from"] != want_from:
        errs.append(f"rank {r}: local rank from {x['local_rank_from']!r}, not {want_from!r}")
    if x["cuda_devices"] != [] or x["shared"]:
        errs.append(f"rank {r}: devices {x['cuda_devices']} (shared {x['shared']}) without a GPU")
    want = ("none (no CUDA device visible)", 0) if cuda else ("no CUDA in this build", -1)
    if (x["cuda_devices_from"], x["visible_devices"]) != want:
        errs.append(f"rank {r}: {x['cuda_devices_from']!r}, {x['visible_devices']} visible, not {want}")
print("\n".join(errs))
sys.exit(1 if errs else 0)
EOF
  ); then
    fail "$name: $out"
  else
    pass
  fi
  [ "$(cks "$sum")" = "$REF" ] && pass || fail "$name: checksum differs from one rank's"
}

if $MPIEXEC --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
  # Open MPI's own variables
  # shellcheck disable=SC2086
  run_ok "mpirun -np 2" mpi_starmet 2 compute $PROB --summary "$T/ompi.json"
  placed "Open MPI" "$T/ompi.json" OMPI_COMM_WORLD_LOCAL_RANK OMPI_COMM_WORLD_LOCAL_RANK
  # only Hydra's (MPICH, Intel MPI) variables: the same ranks, from them
  cat > "$T/hydra.sh" << 'EOF'
#!/bin/sh
export MPI_LOCALRANKID=$OMPI_COMM_WORLD_LOCAL_RANK MPI_LOCALNRANKS=$OMPI_COMM_WORLD_LOCAL_SIZE
unset OMPI_COMM_WORLD_LOCAL_RANK OMPI_COMM_WORLD_LOCAL_SIZE
exec "$@"
EOF
  # a launcher variable that says otherwise than MPI: MPI wins, and says so
  cat > "$T/wrong.sh" << 'EOF'
#!/bin/sh
export OMPI_COMM_WORLD_LOCAL_RANK=0
exec "$@"
EOF
  chmod +x "$T/hydra.sh" "$T/wrong.sh"
  # shellcheck disable=SC2086
  run_ok "Hydra's variables" $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$T/hydra.sh" "$STARMET" compute \
    --quiet $PROB --summary "$T/hydra.json"
  placed "Hydra's variables" "$T/hydra.json" MPI_LOCALRANKID MPI_LOCALRANKID
  # shellcheck disable=SC2086
  run_ok "a wrong variable" $MPIEXEC ${MPIEXEC_FLAGS:-} -np 2 "$T/wrong.sh" "$STARMET" compute \
    --quiet $PROB --summary "$T/wrong.json"
  placed "a wrong variable" "$T/wrong.json" OMPI_COMM_WORLD_LOCAL_RANK \
    "MPI (OMPI_COMM_WORLD_LOCAL_RANK said 0 of 2)"
else
  skip_part "$MPIEXEC is not Open MPI's: the launcher variables are not known here"
fi

# a single process, whatever the launcher variables say: alone, all devices
# shellcheck disable=SC2086
run_ok "no MPI" env OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_LOCAL_SIZE=2 STARMET_MPI=no \
  "$STARMET" compute --quiet $PROB --summary "$T/alone.json"
"$PY" -c "
import json, sys
g = json.load(open(sys.argv[1]))['runtime']['gpus']
assert [(x['local_rank'], x['local_size'], x['local_rank_from']) for x in g] == [(0, 1, 'no MPI')], g
" "$T/alone.json" && pass || fail "a process without MPI is not local rank 0 of 1"
finish
