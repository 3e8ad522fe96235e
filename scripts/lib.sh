# Shared shell helpers for the scripts in scripts/ and bench/peers/ (sourced, not run).
#
# sieve_shared_data: prints the shared data directory and returns 0, by the one
# rule the Rust helper sieve_testdata::shared_data uses:
# $SIEVE_SHARED_DATA if set (and then only it), else ../shared/data beside the
# checkout. When that directory is absent it prints nothing and returns 1.
SIEVE_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sieve_shared_data() {
  local dir
  if [[ -n ${SIEVE_SHARED_DATA+set} ]]; then dir=$SIEVE_SHARED_DATA; else dir=$SIEVE_REPO/../shared/data; fi
  [[ -d $dir ]] || return 1
  (cd "$dir" && pwd)
}
