#!/bin/sh
# Makes the guest's system a known state whatever this host has installed of gestured: a
# plain Debian without gestured, as a kiosk image is built from a clean Debian. vm/run.sh
# copies it into every run's ctl directory and the guest init (vm/guest-init.sh) runs it
# before the test's command, in every tier; each thing it removes or hides is printed as
# one "vm/known-state: ..." line (on the test's stderr), so a run says what the host had.
#
#   known-state.sh remove    (vm/run.sh --systemd: in a chroot of the guest's writable
#                             overlay root, before --before-boot and before systemd starts)
#     - purges an installed (or removed but not purged) Debian package gestured with
#       `dpkg --purge`: its files, its conffiles and deb-systemd-helper's records of its
#       enabled units (otherwise `dpkg -i` of the same version sees units the administrator
#       disabled and, as Debian requires, leaves them disabled);
#     - removes an installation from source (scripts/run.sh --prefix): every file its
#       manifest /etc/gestured/installed-from-source lists, and the manifest;
#     - removes what is left of either: /etc/gestured, the links `systemctl enable` made
#       (/etc/systemd/system/*.wants/gestured*), gestured units, udev rules and sysusers
#       files under /etc, deb-systemd-helper's gestured records, gestured binaries in
#       /usr/local/bin, and the groups gestured and gestured-uinput.
#
#   known-state.sh mask ROOT (the end-to-end tier's read-only root, mounted at ROOT, from the
#                             guest init before the chroot; nothing can be deleted there)
#     - hides what an installation put where a test could pick it up by accident: an empty
#       tmpfs over ROOT/etc/gestured, /dev/null over gestured's binaries in /usr/bin and
#       /usr/local/bin (running one fails at once: the tests run the build's binaries), its
#       udev rules (the e2e driver's udevd would apply them) and every file a source
#       installation's manifest lists.
#
# POSIX sh: "mask" runs under the initramfs's busybox, "remove" under the guest's /bin/sh.
# Exit status 0 unless a removal failed (vm/run.sh then reports the guest's failure).
set -u
# The guest init's PATH is the initramfs's /bin; dpkg and its maintainer scripts need sbin.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mode=${1:?usage: known-state.sh remove | mask ROOT}
root=${2:-}
manifest=/etc/gestured/installed-from-source
# Where gestured's files can be, outside the package's own list (dpkg knows those).
units="gestured.service gestured.socket gestured-web.service gestured-web.socket"
binaries="gestured gesturectl gestured-web"
rules="70-gestured-uinput.rules 71-gestured-uinput.rules"

say() { echo "vm/known-state: $*" >&2; }

remove_file() {
    if [ -e "$1" ] || [ -L "$1" ]; then
        rm -rf "$1" && say "removed $1 ($2)"
    fi
}

remove() {
    # The manifest first: purging the package removes /etc/gestured, the manifest with it.
    if [ -f "$manifest" ]; then
        web=""
        while IFS= read -r file; do
            [ -n "$file" ] && remove_file "$file" "listed in $manifest"
            case "$file" in */share/gestured/web/*) web=${file%/*} ;; esac
        done <"$manifest"
        remove_file "$manifest" "the source installation's manifest"
        # The live view's directories, once empty.
        if [ -n "$web" ] && rmdir "$web" "${web%/web}" 2>/dev/null; then
            say "removed $web and ${web%/web} (empty)"
        fi
    fi
    status=$(dpkg-query -W -f='${Status} ${Version}' gestured 2>/dev/null || true)
    case "$status" in
        *" not-installed"* | "") ;;
        *)
            say "purging the Debian package gestured (host: $status)"
            # --no-triggers: man-db's index rebuild alone takes a minute under emulation; the
            # next dpkg run (the tier's dpkg -i) runs what is pending.
            DEBIAN_FRONTEND=noninteractive dpkg --purge --no-triggers gestured >/dev/null ||
                { say "dpkg --purge gestured failed"; exit 1; }
            ;;
    esac
    for link in /etc/systemd/system/*.wants/gestured* /etc/systemd/user/*.wants/gestured*; do
        remove_file "$link" "a unit enabled on the host"
    done
    for unit in $units; do remove_file "/etc/systemd/system/$unit" "a unit installed on the host"; done
    remove_file /etc/systemd/user/gestured-actions.service "a user unit installed on the host"
    for rule in $rules; do remove_file "/etc/udev/rules.d/$rule" "a udev rule installed on the host"; done
    remove_file /etc/sysusers.d/gestured.conf "installed on the host"
    for binary in $binaries; do remove_file "/usr/local/bin/$binary" "installed on the host"; done
    for record in /var/lib/systemd/deb-systemd-helper-enabled/gestured* \
        /var/lib/systemd/deb-systemd-helper-enabled/*.wants/gestured* \
        /var/lib/systemd/deb-systemd-helper-masked/gestured*; do
        remove_file "$record" "deb-systemd-helper's record"
    done
    remove_file /etc/gestured "left on the host"
    for group in gestured gestured-uinput; do
        if getent group "$group" >/dev/null 2>&1; then
            groupdel "$group" && say "removed the group $group (created on the host)"
        fi
    done
    return 0
}

# hide PATH: /dev/null over a file, an empty tmpfs over a directory, at ROOT/PATH.
hide() {
    target="$root$1"
    if [ -d "$target" ] && [ ! -L "$target" ]; then
        mount -t tmpfs -o mode=755,size=1m tmpfs "$target" && say "hid $1 (installed on this host; empty in the guest)"
    elif [ -f "$target" ]; then
        mount -o bind /dev/null "$target" && say "hid $1 (installed on this host; /dev/null in the guest)"
    fi
}

mask() {
    [ -n "$root" ] || { say "mask needs the root's mount point"; exit 2; }
    # The manifest first: hiding /etc/gestured hides it too.
    if [ -f "$root$manifest" ]; then
        while IFS= read -r file; do
            [ -n "$file" ] && hide "$file"
        done <"$root$manifest"
    fi
    for binary in $binaries; do
        hide "/usr/bin/$binary"
        hide "/usr/local/bin/$binary"
    done
    for rule in $rules; do
        hide "/usr/lib/udev/rules.d/$rule"
        hide "/lib/udev/rules.d/$rule"
        hide "/etc/udev/rules.d/$rule"
    done
    hide /etc/gestured
    return 0
}

case "$mode" in
    remove) remove ;;
    mask) mask ;;
    *) say "unknown mode $mode (remove | mask ROOT)"; exit 2 ;;
esac
