#!/usr/bin/env bash
# Capture memcli's screens in a real terminal (tmux) at 80 and 160 columns, on a copy of
# sample-workspace/ at the fixed time the README uses. Run from anywhere:
#   docs/screens/capture.sh            (memcli on PATH, e.g. the project's venv activated)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
demo=/tmp/memcli-demo  # a fixed place: `status` prints it
rm -rf "$demo" && mkdir -p "$demo"
trap 'rm -rf "$demo"' EXIT
cp -r "$repo/sample-workspace" "$demo/sample-workspace"
rm -rf "$demo/sample-workspace/.memcli"
now=2026-10-31T09:00+08:00

capture() {  # capture WIDTH NAME ARGS...
  local width=$1 name=$2 session=memcli-screens-$$
  shift 2
  tmux new-session -d -s "$session" -x "$width" -y 50 -c "$demo" \
    "env PS1='$ ' MEMCLI_PAGER=cat TERM=xterm-256color bash --norc --noprofile"
  tmux set-option -t "$session" history-limit 10000 >/dev/null
  local command="memcli -w sample-workspace --now $now $*"
  tmux send-keys -t "$session" "clear; echo '\$ $command'; $command; echo __end__" Enter
  for _ in $(seq 1 600); do
    sleep 0.2
    tmux capture-pane -p -t "$session" -S - | grep -q '^__end__' && break
  done
  tmux capture-pane -p -t "$session" -S - -E - \
    | sed -e '/^__end__$/,$d' -e 's/[[:space:]]*$//' \
    | awk '/^\$ memcli / {seen=1} seen' \
    > "$here/$name-$width.txt"
  tmux kill-session -t "$session"
}

for width in 80 160; do
  capture "$width" status status
  capture "$width" gc-dry-run gc --dry-run
  capture "$width" gc-diff gc --dry-run --diff
  capture "$width" list list --since 2026-10-27
  capture "$width" search search 周会
done
