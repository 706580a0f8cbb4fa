#!/usr/bin/env bash
# Installs missing dependencies and builds Switchyard into ${BUILD_DIR:-build}.
# Extra arguments are passed to CMake (e.g. -DSWITCHYARD_SANITIZE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja "$@"
cmake --build "$BUILD_DIR"
