#!/bin/sh
# Checks the generated Swift package as far as can be done without a Swift compiler:
# every file Package.swift expects is there, the Swift sources import the C module the
# modulemap declares, and every native symbol the Swift sources call is declared in the header.
# With the library as second argument (on Linux), also checks it exports every declared symbol.
# Usage: check-sources.sh target/uniffi/swift [target/debug/liboxmcp_ffi.so]
set -eu
dir=${1:?usage: check-sources.sh DIR}
swift="$dir/Sources/Oxmcp/Oxmcp.swift"
header="$dir/Headers/OxmcpFFI.h"
modulemap="$dir/Headers/module.modulemap"
for file in "$dir/Package.swift" "$swift" "$header" "$modulemap"; do
    [ -s "$file" ] || { echo "check-sources: missing $file" >&2; exit 1; }
done
grep -q '^module OxmcpFFI ' "$modulemap" || { echo "check-sources: the modulemap does not declare OxmcpFFI" >&2; exit 1; }
grep -q '^import OxmcpFFI' "$swift" || { echo "check-sources: $swift does not import OxmcpFFI" >&2; exit 1; }
grep -q 'name: "OxmcpFFI"' "$dir/Package.swift" || { echo "check-sources: Package.swift has no OxmcpFFI target" >&2; exit 1; }
used=$(grep -o '\b\(uniffi\|ffi\)_oxmcp_ffi_[A-Za-z0-9_]*' "$swift" | sort -u)
declared=$(grep -o '\b\(uniffi\|ffi\)_oxmcp_ffi_[A-Za-z0-9_]*' "$header" | sort -u)
missing=$(printf '%s\n' "$used" | grep -vxF "$declared" || true)
if [ -n "$missing" ]; then
    echo "check-sources: the Swift sources call symbols the header does not declare:" >&2
    echo "$missing" >&2
    exit 1
fi
if [ -n "${2:-}" ] && [ "$(uname -s)" = Linux ] && command -v nm >/dev/null; then
    exported=$(nm -D --defined-only "$2" | awk '{print $3}' | grep '^\(uniffi\|ffi\)_oxmcp_ffi_' | sort -u)
    absent=$(printf '%s\n' "$declared" | grep -vxF "$exported" || true)
    if [ -n "$absent" ]; then
        echo "check-sources: $2 does not export:" >&2
        echo "$absent" >&2
        exit 1
    fi
fi
count=$(printf '%s\n' "$used" | wc -l)
echo "swift sources: $count native symbols, all declared in OxmcpFFI.h${2:+ and exported by $(basename "$2")}"
