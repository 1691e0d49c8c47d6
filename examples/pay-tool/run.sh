#!/bin/sh
# The pay tool end to end: prepare, check-rb, commit, check-dn, check-thread.
#
#   examples/pay-tool/run.sh
#
# Needs the rogerwilco command on PATH (or ROGERWILCO=/path/to/rogerwilco)
# and python3 (or PYTHON=...). Works on a copy of world.json in a temporary
# directory, so it can be run again and again.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rw=${ROGERWILCO:-rogerwilco}
py=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/world.json" "$work/world.json"
store="$work/store.db"

# the handoff, built from the approval record; it may be acted on for an hour
exp=$(date -u -d '+1 hour' +%Y%m%dT%H%MZ 2>/dev/null || date -u -v+1H +%Y%m%dT%H%MZ)
HO="RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929 exp=$exp"
echo "scheduler -> payer:  $HO"

# 1. the payer's tool states what it will run, frozen under a token
RB=$("$rw" tool prepare "$HO" --store "$store" --n 1 --profile pay)
echo "payer -> scheduler:  $RB"
token=$(echo "$RB" | sed 's/.* x_tok=\([0-9a-f]*\).*/\1/')

# 2. the scheduler checks the statement against the handoff (five tiers)
"$rw" check-rb --ho "$HO" --rb "$RB" --profile pay
AN="RW1 AN scheduler-2 re=payer-1 p=pay from=scheduler to=payer val=Y // statement matches the approved run; proceed"
echo "scheduler -> payer:  $AN"

# 3. the payer commits: the executor runs once and reports what it paid
DN=$("$rw" tool commit "$token" --store "$store" --profile pay --exec "$py" "$here/pay_executor.py" "$work/world.json")
echo "payer -> scheduler:  $DN"

# a second commit of the same token is refused: the act runs exactly once
if "$rw" tool commit "$token" --store "$store" --profile pay --exec "$py" "$here/pay_executor.py" "$work/world.json" 2>/dev/null; then
    echo "a second commit ran: this must not happen" >&2
    exit 1
fi
echo "second commit refused, as it must be"

# 4. the scheduler checks the done report against the plan
"$rw" check-dn --ho "$HO" --dn "$DN" --rb "$RB" --profile pay

# 5. the whole conversation: every handoff closed exactly once
printf '%s\n' "$HO" "$RB" "$AN" "$DN" > "$work/conversation.rw1"
"$rw" check-thread "$work/conversation.rw1" --profile pay
"$py" -c 'import json,sys; w=json.load(open(sys.argv[1])); print("ledger:", len(w["payments"]), "payment,", "invoice", w["invoices"]["MD-2026-057"]["status"])' "$work/world.json"
