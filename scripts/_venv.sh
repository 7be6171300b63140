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
# clicks as real X events. One dpkg-query call checks them all, so a machine that has everything
# skips apt in a few milliseconds.
QT_APT_PACKAGES=(
    libegl1 libgl1 libopengl0 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libfreetype6 libdbus-1-3 libglib2.0-0
    libx11-6 libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0
    libxcb-randr0 libxcb-render0 libxcb-render-util0 libxcb-image0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0
    libxcb-xkb1 libxcb-util1
)
ensure_qt_runtime() {
    local wanted=("${QT_APT_PACKAGES[@]}")
    [ "${1:-}" = "test" ] && wanted+=(xvfb xauth xdotool openbox)
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

# apt-get install as root, or through sudo; a clear message when neither is possible.
apt_install() {
    local sudo_cmd=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || {
            echo "storyloom: need root or sudo to install: $* (or install them yourself)" >&2
            return 1
        }
        sudo_cmd=(sudo)
    fi
    "${sudo_cmd[@]}" apt-get update -qq || return 1
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "$@" || return 1
}
