# Sourced by fetch-kernel and fetch-kernel-dbg (bash): Debian packages
# downloaded once into ~/.cache/stapx/debs. The caller defines die().

# cached_deb_of PACKAGE: the path of PACKAGE's newest .deb in the cache,
# downloaded there with apt-get the first time.
cached_deb_of() {
	local pkg=$1 cache=${XDG_CACHE_HOME:-$HOME/.cache}/stapx/debs deb tmp rc msg
	mkdir -p "$cache"
	deb=$(ls -1 "$cache/${pkg}_"*.deb 2>/dev/null | sort -V | tail -n1 || true)
	if [ -z "$deb" ]; then
		echo "${0##*/}: downloading $pkg into $cache" >&2
		tmp=$(mktemp -d "$cache/.dl.XXXXXX")
		# As root apt downloads as _apt, which cannot write into a root-owned
		# directory: it falls back to root with a warning.  Let _apt write
		# here and drop that warning.
		chmod 0777 "$tmp"
		rc=0
		msg=$(cd "$tmp" && apt-get download -q "$pkg" 2>&1 >/dev/null) || rc=$?
		msg=$(printf '%s\n' "$msg" | grep -v -e 'sandbox' -e '^ *$' || true)
		[ -z "$msg" ] || printf '%s\n' "$msg" >&2
		if [ $rc -ne 0 ]; then
			rm -rf "$tmp"
			die "apt-get download $pkg failed"
		fi
		mv "$tmp"/*.deb "$cache/"
		rm -rf "$tmp"
		deb=$(ls -1 "$cache/${pkg}_"*.deb | sort -V | tail -n1)
	fi
	printf '%s\n' "$deb"
}
