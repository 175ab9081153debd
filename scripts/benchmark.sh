#!/usr/bin/env bash
# The engine benchmark (docs/performance.md): ContactTracker + GestureEngine over the whole
# corpus held in memory (../shared/corpus, or $GESTURED_CORPUS), with and without JSON
# encoding, and heap allocations per frame in steady state and over the corpus.
# Release build, ordo-one/benchmark, in the separate package Benchmarks/ (its own .build).
# Extra arguments go to `swift package benchmark`, e.g. `--filter 'Corpus.*'`.
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "swift:   $(swift --version 2>&1 | head -1)"
# The plugin starts the benchmark executable once per benchmark: print its preamble once.
swift package benchmark --no-progress "$@" 2>&1 \
    | grep -v -E '^\[[0-9]+/[0-9]+\]|^(Building|Build |Compiling|Write |Linking)' \
    | awk '!(/^(corpus:|Steady:.* per pass|Note: skipping)/ && seen[$0]++)'
