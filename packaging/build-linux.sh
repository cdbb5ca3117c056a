#!/usr/bin/env bash
# Build the one-folder Linux application into dist/fabric-designer/ and check that it starts.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
if [ ! -x "$PY" ]; then
  echo "build-linux: run 'make test' or 'make run' first to create .venv" >&2
  exit 1
fi
"$PY" -m pip install --quiet "pyinstaller>=6.5"
"$PY" -m PyInstaller packaging/fabric-designer.spec --noconfirm --clean \
  --distpath dist --workpath build/pyinstaller
APP=dist/fabric-designer
install -Dm644 packaging/io.fabricdesigner.FabricDesigner.desktop "$APP/share/applications/io.fabricdesigner.FabricDesigner.desktop"
install -Dm644 packaging/io.fabricdesigner.FabricDesigner.metainfo.xml "$APP/share/metainfo/io.fabricdesigner.FabricDesigner.metainfo.xml"
install -Dm644 resources/icons/fabric-designer.svg "$APP/share/icons/hicolor/scalable/apps/io.fabricdesigner.FabricDesigner.svg"
"$APP/fabric-designer" --version
echo "built $APP ($(du -sh "$APP" | cut -f1))"
