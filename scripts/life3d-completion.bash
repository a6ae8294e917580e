# bash completion for life3d and life3d census (installed as
# $(datadir)/bash-completion/completions/life3d).
#
# Nothing here lists life3d's options or their words: they are asked of
# the life3d being completed, so the completion stays true to its build.
# The options and which of them take a value come from --help (an
# upper-case argument: --output FILE); the words an option takes from the
# message for a value it refuses ("'?' is not one of auto|cpu|cuda", or
# the census's "(expected auto, cpu or cuda)").  Options whose argument
# is a file or directory complete names; INPUT completes names.

# _life3d_run ARGS...: the life3d on the command line (./life3d, a path),
# else the one on PATH.
_life3d_run() {
	local cmd=${COMP_WORDS[0]}
	[[ $cmd == */* && -x $cmd ]] || cmd=life3d
	"$cmd" "$@" 2>&1
}

# _life3d_words OPTION [census]: the words OPTION takes, or nothing.  An
# unknown option after it ends the probe at parsing wherever '?' is a
# value OPTION takes: nothing runs, nothing is read or written.
_life3d_words() {
	local msg
	msg=$(_life3d_run $2 "$1" '?' --no-such-option </dev/null)
	case $msg in
	*"is not one of "*)
		msg=${msg#*is not one of }
		msg=${msg%%$'\n'*}
		printf '%s\n' "${msg//|/$'\n'}" ;;
	*"(expected "*)
		msg=${msg#*(expected }
		msg=${msg%%)*}
		msg=${msg//, / }
		msg=${msg// or / }
		printf '%s\n' $msg ;;
	esac
}

_life3d() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev="" census="" help opt
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	[[ ${COMP_WORDS[1]-} == census ]] && census=census
	COMPREPLY=()
	if ((COMP_CWORD == 1)) && [[ $cur != -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W census -- "$cur"; compgen -f -- "$cur")
		return
	fi
	help=$(_life3d_run $census --help </dev/null)
	# An option that takes a value: its metavariable after it in --help.
	if [[ $prev == -* ]]; then
		local line meta=""
		line=$(grep -E -- "(^|[ ,])$prev([ ,=]|\$)" <<<"$help" | head -n 1)
		meta=$(sed -E -n 's/^ *(-[a-zA-Z0-9], )?--[a-z0-9-]+ ([A-Z][^ ]*).*/\2/p' <<<"$line")
		if [[ -n $meta ]]; then
			local words=""
			case $meta in FILE | DIR | HAUL) ;; *) words=$(_life3d_words "$prev" $census) ;; esac
			if [[ -n $words ]]; then
				mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
			elif [[ $meta == DIR ]]; then
				mapfile -t COMPREPLY < <(compgen -d -- "$cur")
			elif [[ $meta == FILE || $meta == PATH || $meta == HAUL ]]; then
				mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			fi
			return
		fi
	fi
	if [[ $cur == -* ]]; then
		opt=$(grep -E -o -- '(^|[ ,])--?[a-z][a-z0-9-]*' <<<"$help" | tr -d ' ,' | sort -u)
		mapfile -t COMPREPLY < <(compgen -W "$opt" -- "$cur")
		return
	fi
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -F _life3d life3d
