#!/bin/sh
# Installs this Storyloom folder for the current user: the app in the desktop's menu (a .desktop
# file in ~/.local/share/applications, the icon in ~/.local/share/icons) and the `storyloom`
# command in ~/.local/bin. Nothing is copied: the entries point into this folder, so keep it
# where it is (move it, then run this again). `./install.sh --uninstall` removes the entries.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
apps="$data/applications"
icons="$data/icons/hicolor/256x256/apps"
bin="$HOME/.local/bin"

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$apps/storyloom.desktop" "$icons/storyloom.png"
    [ -L "$bin/storyloom" ] && rm -f "$bin/storyloom"
    echo "Storyloom's menu entry and command removed (this folder is left as it is)."
    exit 0
fi

mkdir -p "$apps" "$icons" "$bin"
cp "$here/storyloom.png" "$icons/storyloom.png"
# The entry starts this folder's app by its full path: ~/.local/bin may not be on the menu's PATH.
sed "s|^Exec=.*|Exec=\"$here/storyloom-app\"|" "$here/storyloom.desktop" > "$apps/storyloom.desktop"
ln -sfn "$here/storyloom" "$bin/storyloom"
# Menus notice the new entry sooner when their caches are refreshed (both tools are optional).
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$apps" || true
command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$data/icons/hicolor" || true
echo "Storyloom installed: in the menu as Storyloom; \`storyloom\` in $bin."
