#!/usr/bin/env bash
# Installs what Switchyard needs on Debian 12. Safe to run repeatedly: it only
# asks apt/pip for packages that are missing.
set -euo pipefail
pkgs=(cmake ninja-build gcc g++ pkg-config libonnx-dev libprotobuf-dev protobuf-compiler
      libtbb-dev libdnnl-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
      nlohmann-json3-dev libonnx-testdata python3 python3-pip ccache
      ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers  # oneDNN's CMake config requires OpenCL
      libjpeg62-turbo-dev libpng-dev libtiff-dev libwebp-dev libopenjp2-7-dev)  # ImageDecoder's codecs
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# Python packages are only needed to regenerate models and for the ONNX Runtime
# comparison; their absence must not break the C++ build or the test suite.
if [ "${SWITCHYARD_PY_DEPS:-0}" = "1" ]; then
  # Debian 12's own python3 refuses pip outside a virtual environment (PEP
  # 668) unless told to.
  python3 -m pip install -q onnx onnxruntime numpy 2>/dev/null ||
    python3 -m pip install -q --break-system-packages onnx onnxruntime numpy ||
    echo "warning: pip install failed" >&2
fi
