#!/usr/bin/env bash
# Builds the Debian package tributary_VERSION_amd64.deb (deploy/README.md,
# "Debian package") with dpkg-deb: the three binaries in /usr/bin (stripped),
# the systemd units in /lib/systemd/system, their settings in /etc/tributary
# (conffiles), a `tributary` system user made by postinst, and Depends
# computed by dpkg-shlibdeps from the libraries the binaries load.
#
#   tools/package.sh [--bin-dir DIR] [--out DIR] [--fast]
#
#   --bin-dir DIR  take tributary, tributary-master and tributary-worker from DIR
#                  (default: build them with Bazel; $TRIBUTARY_BAZEL_FLAGS is added,
#                  e.g. --copt=-march=x86-64-v2 for a package other machines can run:
#                  .bazelrc builds for this machine's CPU)
#   --out DIR      where the .deb goes (default: dist/)
#   --fast         gzip -1 instead of xz (tests: a third of the time, a bigger file)
# Prints the .deb's path on stdout.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bin_dir="" out="dist" compression=(-Zxz)
while (($#)); do
  case "$1" in
    --bin-dir) bin_dir="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --fast) compression=(-Zgzip -z1); shift ;;
    *) echo "usage: tools/package.sh [--bin-dir DIR] [--out DIR] [--fast]" >&2; exit 2 ;;
  esac
done
if [[ -z "$bin_dir" ]]; then
  # shellcheck disable=SC2086
  bazel build ${TRIBUTARY_BAZEL_FLAGS:-} //tools:tributary //master:tributary-master \
    //worker:tributary-worker 2> >(grep -v linux-sandbox >&2) >&2
  work_bin=$(mktemp -d)
  cp bazel-bin/tools/tributary bazel-bin/master/tributary-master \
    bazel-bin/worker/tributary-worker "$work_bin"
  bin_dir="$work_bin"
fi

version=$(tr -d ' \n' < VERSION)
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/tributary_${version}_amd64"

install -d "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" \
  "$root/etc/tributary/tasks" "$root/usr/share/doc/tributary" \
  "$root/usr/share/lintian/overrides"
for b in tributary tributary-master tributary-worker; do
  install -m 0755 "$bin_dir/$b" "$root/usr/bin/$b"
  strip --strip-unneeded --remove-section=.comment --remove-section=.note \
    "$root/usr/bin/$b"
done
# The units as deploy/systemd has them, for binaries in /usr/bin.
for unit in tributary-master.service tributary-worker@.service; do
  sed 's|/usr/local/bin/|/usr/bin/|' "deploy/systemd/$unit" > "$root/lib/systemd/system/$unit"
  chmod 0644 "$root/lib/systemd/system/$unit"
done
install -m 0644 deploy/systemd/tributary.env "$root/etc/tributary/tributary.env"
install -m 0644 deploy/systemd/tasks/*.env "$root/etc/tributary/tasks/"
install -m 0644 deploy/examples/local-ps-2workers.json "$root/etc/tributary/cluster.json"
install -m 0644 deploy/debian/copyright "$root/usr/share/doc/tributary/copyright"
sed -e "s/@VERSION@/$version/" -e "s/@COMMIT@/$commit/" \
    -e "s/@DATE@/$(date -R)/" deploy/debian/changelog.in \
  | gzip -9n > "$root/usr/share/doc/tributary/changelog.gz"
chmod 0644 "$root/usr/share/doc/tributary/changelog.gz"
install -m 0644 deploy/debian/lintian-overrides "$root/usr/share/lintian/overrides/tributary"

# Depends: the packages of the shared libraries the binaries link, at the
# versions they need (dpkg-shlibdeps reads a source package's debian/control).
shlibs_dir="$stage/shlibs"
mkdir -p "$shlibs_dir/debian"
printf 'Source: tributary\n\nPackage: tributary\nArchitecture: any\n' > "$shlibs_dir/debian/control"
shlibs=$(cd "$shlibs_dir" && dpkg-shlibdeps -O \
  -e"$root/usr/bin/tributary" -e"$root/usr/bin/tributary-master" \
  -e"$root/usr/bin/tributary-worker" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[[ -n "$shlibs" ]] || { echo "package: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@SHLIBS@/$shlibs/" -e "s/@SIZE@/$size/" \
  deploy/debian/control.in > "$root/DEBIAN/control"
install -m 0755 deploy/debian/postinst "$root/DEBIAN/postinst"
(cd "$root" && find etc -type f | sed 's|^|/|' | sort) > "$root/DEBIAN/conffiles"
(cd "$root" && find usr lib -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"

mkdir -p "$out"
deb="$out/tributary_${version}_amd64.deb"
dpkg-deb --root-owner-group "${compression[@]}" --build "$root" "$deb" >&2
echo "$deb"
