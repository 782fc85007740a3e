#!/usr/bin/env bash
# This model's training run, continued (`start`) or saved back into run/ (`save`) by
# models/resume.sh, which says how; the run's arguments are in train-args.sh.
exec bash "$(dirname "$0")/../resume.sh" "$(dirname "$0")" "$@"
