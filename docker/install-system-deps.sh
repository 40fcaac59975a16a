#!/usr/bin/env bash
# System packages finqa needs beyond Python (Debian/Ubuntu): Tesseract OCR with Simplified and
# Traditional Chinese and Japanese data for scanned pages, and what docker/elasticsearch.sh uses
# (a JDK 17+, Maven to fetch the server, unzip, curl); for `finqa serve`'s browser test Chromium and its
# chromedriver. No CJK font: with one installed, pdfium reads PDFs that do not embed their CJK fonts
# differently (tests/parser/test_pdf.py sees it), so such pages render without those glyphs. Installs only
# what is missing; a no-op when everything is there.
#
#   bash docker/install-system-deps.sh
set -euo pipefail

PACKAGES=(
    tesseract-ocr tesseract-ocr-chi-sim tesseract-ocr-chi-tra tesseract-ocr-jpn
    openjdk-17-jre-headless maven unzip curl
    chromium chromium-driver
)
OCR_LANGS=(chi_sim chi_tra jpn)

installed() {
    [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) == "install ok installed" ]]
}

command -v dpkg-query >/dev/null 2>&1 || {
    echo "install-system-deps.sh: not a Debian-based system; install by hand: ${PACKAGES[*]}" >&2
    exit 1
}

missing=()
for pkg in "${PACKAGES[@]}"; do
    installed "$pkg" || missing+=("$pkg")
done

if ((${#missing[@]})); then
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null 2>&1 || {
            echo "install-system-deps.sh: run as root or install sudo; missing: ${missing[*]}" >&2
            exit 1
        }
        sudo=(sudo)
    fi
    start=$SECONDS
    echo "install-system-deps.sh: installing ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    echo "install-system-deps.sh: installed in $((SECONDS - start))s"
fi

# Check the result, not only the package database: tesseract must list every language we need.
langs="$(tesseract --list-langs 2>&1)"
for lang in "${OCR_LANGS[@]}"; do
    grep -qx "$lang" <<<"$langs" || {
        echo "install-system-deps.sh: tesseract lacks language data '$lang' after install" >&2
        exit 1
    }
done
echo "install-system-deps.sh: ok ($(tesseract --version 2>&1 | head -n1); languages ${OCR_LANGS[*]})"
