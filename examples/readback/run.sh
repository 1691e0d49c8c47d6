#!/bin/sh
# Run every readback example. Each one shows a fault a check catches, so each
# check exits 1; the script reports the exit code and carries on.
# Usage: examples/readback/run.sh   (ROGERWILCO=path/to/rogerwilco to override)
cd "$(dirname "$0")" || exit 2
RW="${ROGERWILCO:-rogerwilco}"
line() { sed -n "${2}p" "$1"; }

run() {
    title="$1"; shift
    printf '\n== %s\n$ rogerwilco %s\n' "$title" "$1"
    "$RW" "$@"
    printf '(exit %s)\n' "$?"
}

run "1. misread envelope: ask=FIX read back as BUILD" \
    check-rb --ho "$(line 01-misread-envelope.rw1 1)" --rb "$(line 01-misread-envelope.rw1 2)"
run "2. wrong length: the sender meant 120 words" \
    check-rb --ho "$(line 02-wrong-length.rw1 1)" --rb "$(line 02-wrong-length.rw1 2)" \
    --expect-acc "len:120w+tone:plain+no:em-dash+must:monday-problem"
run "3. dropped constraint: 'without naming clients' is missing" \
    check-rb --ho "$(line 03-dropped-constraint.rw1 1)" --rb "$(line 03-dropped-constraint.rw1 2)" \
    --expect-acc "len:800w+aud:finance-leads+must:cost-saving+no:client-names"
run "4. wrong amount: 5100.00 read back for 5400.00" \
    check-rb --profile pay --ho "$(line 04-wrong-amount.rw1 1)" --rb "$(line 04-wrong-amount.rw1 2)"
run "5. resolved account the record contradicts" \
    check-rb --profile pay --ho "$(line 05-resolved-account.rw1 1)" --rb "$(line 05-resolved-account.rw1 2)" \
    --record 05-record.json
run "6. done report that differs from its plan" \
    check-dn --profile pay --ho "$(line 06-done-differs.rw1 1)" --dn "$(line 06-done-differs.rw1 2)"
