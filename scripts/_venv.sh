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
