# Shared by scripts/run and scripts/test: make .venv and install Storyloom into it.
# Usage: source scripts/_venv.sh EXTRAS   (EXTRAS is "" or "test")
ensure_venv() {
    local extras="$1"
    local py="${PYTHON:-python3}"
    if [ ! -x .venv/bin/python ]; then
        "$py" -m venv .venv
    fi
    local stamp=".venv/.installed-${extras:-app}"
    # Reinstall only when pyproject.toml changed since the last install.
    if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
        .venv/bin/python -m pip install --quiet --upgrade pip
        if [ -n "$extras" ]; then
            .venv/bin/python -m pip install --quiet -e ".[${extras}]"
        else
            .venv/bin/python -m pip install --quiet -e .
        fi
        touch "$stamp"
    fi
}

# The system libraries Qt's wheels load (EGL/GL, fonts, D-Bus, GLib, xkbcommon) and the xcb
# platform plugin's (libqxcb.so), from Debian's apt. With "test", also Xvfb (the app tests run the
# real process on a virtual display), and for the writer's acceptance test (tests/acceptance) a
# window manager (openbox: small, starts in a fraction of a second) and xdotool, which types and
# clicks as real X events, and GNU gettext (the translation file tests check a written .po with its
# msgfmt). One dpkg-query call checks them all, so a machine that has everything
# skips apt in a few milliseconds.
QT_APT_PACKAGES=(
    libegl1 libgl1 libopengl0 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libfreetype6 libdbus-1-3 libglib2.0-0
    libx11-6 libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0
    libxcb-randr0 libxcb-render0 libxcb-render-util0 libxcb-image0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0
    libxcb-xkb1 libxcb-util1
)
ensure_qt_runtime() {
    local wanted=("${QT_APT_PACKAGES[@]}")
    [ "${1:-}" = "test" ] && wanted+=(xvfb xauth xdotool openbox gettext)
    command -v dpkg-query >/dev/null 2>&1 || return 0  # not Debian: the README lists the libraries
    local missing=()
    local pkg status
    while IFS=' ' read -r pkg status; do
        [ "$status" = "installed" ] || missing+=("$pkg")
    done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${wanted[@]}" 2>/dev/null)
    # Packages dpkg has never heard of print nothing: compare the names found with the names wanted.
    local known
    known=" $(dpkg-query -W -f='${Package} ' "${wanted[@]}" 2>/dev/null || true) "
    for pkg in "${wanted[@]}"; do
        [[ "$known" == *" $pkg "* ]] || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    apt_install "${missing[@]}"
}

# The package manager's locks: apt-get fails at once when another program holds one (apt-get
# update does not honour DPkg::Lock::Timeout for the lists lock), so the scripts wait for them.
APT_LOCKS=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock)
APT_LOCK_WAIT_SECONDS="${APT_LOCK_WAIT_SECONDS:-900}"

# "PID COMMAND" of a process holding one of APT_LOCKS (from the kernel's lock table), or nothing.
apt_lock_holder() {
    command -v lslocks >/dev/null 2>&1 || return 0
    # As the installer will run (root, or sudo): another user's lock paths are not readable.
    "${APT_SUDO[@]}" lslocks -n -r -o PID,COMMAND,PATH 2>/dev/null | awk -v locks=" ${APT_LOCKS[*]} " \
        'index(locks, " " $3 " ") { print $1, $2; exit }'
}

# Wait, saying so, while another program (an unattended upgrade, a software centre, another
# install) holds the package manager; give up after APT_LOCK_WAIT_SECONDS with what to do.
wait_for_package_manager() {
    local holder waited=0
    holder="$(apt_lock_holder)"
    [ -z "$holder" ] && return 0
    echo "storyloom: waiting for ${holder#* } (process ${holder%% *}) to finish with the package manager..." >&2
    while [ -n "$holder" ]; do
        if [ "$waited" -ge "$APT_LOCK_WAIT_SECONDS" ]; then
            echo "storyloom: the package manager is still held by ${holder#* } (process ${holder%% *}) after" \
                "${waited} s; let it finish (or stop it), then run this again" >&2
            return 1
        fi
        sleep 1
        waited=$((waited + 1))
        [ $((waited % 30)) -eq 0 ] && echo "storyloom: still waiting for ${holder#* } (${waited} s)..." >&2
        holder="$(apt_lock_holder)"
    done
    echo "storyloom: the package manager is free; installing" >&2
}

# apt-get install as root, or through sudo; a clear message when neither is possible.
APT_SUDO=()
apt_install() {
    APT_SUDO=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || {
            echo "storyloom: need root or sudo to install: $* (or install them yourself)" >&2
            return 1
        }
        APT_SUDO=(sudo)
    fi
    wait_for_package_manager || return 1
    "${APT_SUDO[@]}" apt-get update -qq || return 1
    wait_for_package_manager || return 1
    # The timeout covers a program that takes the lock between the check and the install.
    DEBIAN_FRONTEND=noninteractive "${APT_SUDO[@]}" apt-get install -y -qq --no-install-recommends \
        -o DPkg::Lock::Timeout="$APT_LOCK_WAIT_SECONDS" "$@" || return 1
}
