package main

import (
	"bytes"
	"strings"

	"github.com/spf13/cobra"
)

// bashWithoutPackage makes the script of `completion bash` work in a bash
// without the bash-completion package. Cobra's script splits the command
// line with that package's _get_comp_words_by_ref, and without it bash
// says "command not found" at every Tab. The script switchboard prints
// ends with its own splitting, used where the package is not loaded.
func bashWithoutPackage(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	bash, _, err := root.Find([]string{"completion", "bash"})
	if err != nil || bash.Name() != "bash" {
		return
	}
	bash.Long = strings.Replace(bash.Long,
		"This script depends on the 'bash-completion' package.\nIf it is not installed already, you can install it via your OS's package manager.\n",
		"It works with the 'bash-completion' package and without it.\n", 1)
	bash.RunE = func(cmd *cobra.Command, _ []string) error {
		noDesc, _ := cmd.Flags().GetBool("no-descriptions")
		var script bytes.Buffer
		if err := cmd.Root().GenBashCompletionV2(&script, !noDesc); err != nil {
			return err
		}
		script.WriteString(bashSplitLine)
		_, err := cmd.OutOrStdout().Write(script.Bytes())
		return err
	}
}

// bashSplitLine replaces the function of cobra's script that splits the
// command line: it calls _get_comp_words_by_ref where the bash-completion
// package has defined it, and otherwise splits the line itself. Like the
// package called with -n =:, it keeps "--to=dev" and "a:b" one word, which
// bash's COMP_WORDS splits in three.
const bashSplitLine = `
# switchboard: split the command line without the bash-completion package
# when it is not loaded.
__switchboard_init_completion()
{
    COMPREPLY=()
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@" cur prev words cword
        return
    fi
    local line=${COMP_LINE:0:COMP_POINT} blank word last= i
    words=()
    for ((i = 0; i <= COMP_CWORD && i < ${#COMP_WORDS[@]}; i++)); do
        blank=${line%%[![:space:]]*}
        line=${line#"$blank"}
        word=${COMP_WORDS[i]}
        if ((i == COMP_CWORD)); then
            word=$line # the word up to the cursor
        fi
        line=${line#"$word"}
        if ((i > 1)) && [[ -z $blank && ( $word == [=:]* || $last == *[=:] ) ]]; then
            words[${#words[@]}-1]+=$word
        else
            words+=("$word")
        fi
        last=$word
    done
    cword=$((${#words[@]} - 1))
    cur=${words[cword]}
    prev=${words[cword-1]}
}
`
