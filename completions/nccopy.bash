_nccopy() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="nccopy"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        nccopy)
            opts="-k -3 -4 -5 -6 -7 -d -s -u -w -c -v -V -g -G -m -h -e -r -x -F -L -M -j --allow-truncated --shards --template --region --append --allow-overlap --dry-run --quantize --jobs --recode --list-filters --try-filters --json --kerchunk --concat --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                -k)
                    COMPREPLY=($(compgen -W "classic nc3 64-bit-offset nc6 cdf5 nc5 netCDF-4 nc4 netcdf-4-classic nc7" -- "${cur}"))
                    return 0
                    ;;
                -d)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -v)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -V)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -g)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -G)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -m)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -h)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shards)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --template)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --region)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --append)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -F)
                    COMPREPLY=($(compgen -W "none *,none *,deflate,5 *,shuffle|deflate,5 *,bzip2,9 *,zstd,3 *,shuffle|zstd,3 *,lz4 *,blosc *,fletcher32 *,szip,32,32" -- "${cur}"))
                    return 0
                    ;;
                -L)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -M)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --quantize)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -j)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --try-filters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kerchunk)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --concat)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _nccopy -o nosort -o bashdefault -o default nccopy
else
    complete -F _nccopy -o bashdefault -o default nccopy
fi

# nctools: filter names after `-F VAR,` (the part after the last comma).
_nccopy_filter_names() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
    if [[ "$prev" == "-F" && "$cur" == *,* ]]; then
        COMPREPLY=($(compgen -P "${cur%,*}," -W "deflate zlib zip shuffle fletcher32 szip nbit scaleoffset bzip2 bz2 lzf blosc mafisc snappy lz4 apax cbf jpeg-xr bitshuffle spdp lpc-rice ccsds-123 jpeg-ls zfp fpzip zstd zstandard b3d sz fcidecomp sz3 blosc2 sperr none" -- "${cur##*,}"))
        return 0
    fi
    _nccopy "$@"
}
complete -F _nccopy_filter_names -o bashdefault -o default nccopy
