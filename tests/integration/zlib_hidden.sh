#!/usr/bin/env bash
# libcuptitrace.so carries its own zlib, hidden: no zlib symbol is exported
# (the program's own zlib, of whatever version, is never replaced by ours nor
# ours by it) and no libz.so is needed.
#   zlib_hidden.sh LIBRARY
set -u
lib=$1
command -v nm >/dev/null && command -v readelf >/dev/null || { echo "zlib_hidden: no nm or readelf" >&2; exit 77; }
status=0
exported=$(nm -D --defined-only "$lib" | awk '{print $NF}' |
           grep -E '^(deflate|inflate|compress|uncompress|crc32|adler32|gz|zlib|zError|get_crc_table)' || true)
if [ -n "$exported" ]; then
  echo "zlib_hidden: $lib exports zlib symbols: $(echo $exported | cut -c1-300)" >&2
  status=1
fi
if readelf -d "$lib" | grep -E 'NEEDED.*libz\.so' >&2; then
  echo "zlib_hidden: $lib needs a shared zlib" >&2
  status=1
fi
# And zlib is inside, as local symbols (so the json.gz output has its compressor).
if ! nm "$lib" | grep -qE ' t deflateInit2_$'; then
  echo "zlib_hidden: no local deflateInit2_ in $lib" >&2
  status=1
fi
[ $status -eq 0 ] && echo "zlib_hidden: zlib is inside $lib, hidden"
exit $status
