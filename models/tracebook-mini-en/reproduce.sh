#!/usr/bin/env bash
# Rebuild this model from scratch (the corpus, then `tracebook train` with train-args.sh):
# models/reproduce.sh says how and what it needs.
exec bash "$(dirname "$0")/../reproduce.sh" "$(dirname "$0")" "$@"
