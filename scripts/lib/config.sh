# shellcheck shell=bash
# Kernel config checks: the options fragments ask for that a .config lost.
# Sourced by scripts/lib.sh (which sets TOP, BUILD, ...), never on its own.

# config_lost CONFIG FRAGMENT...: the options the fragments ask for that
# CONFIG (a .config after olddefconfig) does not have, one line each as
# "CONFIG_X=y (got ...)"; nothing when all survived.  y/m/strings must be
# there exactly, =n as "is not set" or absent.  A later fragment overrides
# an earlier one (the bench kernels leave out ACPI and tracing): the last
# value asked for an option is the one checked, as merge_config.sh
# applies them.
config_lost() {
	local config=$1 line opt val got
	shift
	local -A asked=()
	local asked_order=()
	while IFS= read -r line; do
		line=${line%%#*}
		line=${line%"${line##*[![:space:]]}"}
		[ -n "$line" ] || continue
		opt=${line%%=*}
		[ -n "${asked[$opt]+set}" ] || asked_order+=("$opt")
		asked[$opt]=$line
	done < <(grep -h '^CONFIG_' "$@")
	for opt in "${asked_order[@]}"; do
		line=${asked[$opt]}
		val=${line#*=}
		if [ "$val" = n ]; then
			if grep -q "^$opt=" "$config"; then
				echo "$opt=n (got $(grep "^$opt=" "$config"))"
			fi
		elif ! grep -qxF "$line" "$config"; then
			got=$(grep -E "^$opt=|^# $opt is not set" "$config" || echo "absent")
			echo "$line (got $got)"
		fi
	done
}
