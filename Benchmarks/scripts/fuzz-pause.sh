# Sourced by the scripts that measure speed (identify-ratio.sh, compare-builds.sh,
# serve-load.sh): libFuzzer runs (release/Fuzz*, from scripts/fuzz or by hand) take a core each
# on this 2-core machine, so they are stopped (SIGSTOP) while a figure is measured and resumed
# after; the sourcing script's EXIT trap calls fuzzers_resume too.
fuzzers=$(pgrep -f 'release/Fuzz' | tr '\n' ' ' || true)
fuzzers_pause() { [ -z "$fuzzers" ] || kill -STOP $fuzzers 2>/dev/null || true; }
fuzzers_resume() { [ -z "$fuzzers" ] || kill -CONT $fuzzers 2>/dev/null || true; }
