/**
 * The code Portal adds to bash, zsh and fish so that they mark their
 * prompts and commands (OSC 133 A/B/C/D, 633 E/F/G, OSC 7; see marks.ts).
 * It is added to the user's own setup, never in its place: the prompt is
 * wrapped (and wrapped again if the user sets a new one), the hooks are
 * appended to `PROMPT_COMMAND`, `precmd_functions`/`preexec_functions` or
 * fish's events, and a second load changes nothing.
 *
 * - **bash** (4.4 or later, for `PS0`): `PS1` carries the directory, the
 *   end of the last command with `$?`, and the prompt's start and end; `PS0`
 *   the output start; `PS2` is marked as a continuation prompt. The start and
 *   end carry the shell's clock (`$EPOCHREALTIME`, bash 5), so a command's
 *   duration does not depend on when Portal reads them. Nothing
 *   forks per command, so a step costs what it did; the command line is read
 *   from its echo (echo_line.ts). An older bash gets no marks.
 * - **zsh**: `precmd` reports the directory and rewraps the prompt, whose
 *   marks carry `%?` and the time; `preexec` sends the command line and the
 *   output start with the time.
 * - **fish**: `fish_preexec` and `fish_postexec` events (the end carries
 *   `$CMD_DURATION`), and `fish_prompt` wrapped.
 *
 * Each is one text that works as a file, as a command line, and typed on one
 * line ({@link oneLine}): no single quote (the remote snippet puts each in
 * single quotes), a statement per line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { oneLine } from "./hooks.ts";
 *
 * assert.equal(oneLine("if true; then\n  a=1\n  b=2\nfi"), "if true; then a=1; b=2; fi");
 * assert.equal(oneLine("f() {\n  # why\n  echo hi\n}"), "f() { echo hi; }");
 * ```
 * @module
 */

/**
 * A shell script written in a template: as raw text (backslashes are the
 * shell's), where `\${` and `` \` `` stand for `${` and a backtick.
 */
function sh(strings: TemplateStringsArray): string {
  return strings.raw.join("").replaceAll("\\${", "${").replaceAll("\\`", "`").trim() + "\n";
}

/** Lines after which the next statement follows without a `;`. */
const OPENS = /(\bthen|\bdo|\belse|\{|\||&&|;)$/;

/** A script written a statement per line, as one line (comments and blank lines dropped). */
export function oneLine(script: string): string {
  let line = "";
  for (const raw of script.split("\n")) {
    const text = raw.trim();
    if (text === "" || text.startsWith("#")) continue;
    line += line === "" ? text : OPENS.test(line) ? ` ${text}` : `; ${text}`;
  }
  return line;
}

/** bash: the marks in PS1, PS0 and PS2, rewrapped by PROMPT_COMMAND when they change. */
export const BASH_HOOKS = sh`
if [ -z "$__portal_si" ] && [ "$((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1]))" -ge 404 ]; then
  __portal_si=1
  __portal_wrap() {
    __portal_cwd=\${PWD//\%/%25}
    case "$PS1" in *"133;B"*) ;; *) PS1="\[\e]7;file://\$__portal_cwd\a\e]133;D;\$?;t=\$EPOCHREALTIME\a\e]133;A\a\]$PS1\[\e]133;B\a\]" ;; esac
    case "$PS2" in *"633;F"*) ;; *) PS2="\[\e]633;F\a\]$PS2\[\e]633;G\a\]" ;; esac
    case "$PS0" in *"133;C"*) ;; *) PS0="$PS0\e]133;C;t=\$EPOCHREALTIME\a" ;; esac
    # A prompt from the environment is exported: a shell started from this one would draw
    # the marks without sending the output start, and end this shell's command with them.
    export -n PS1 PS2 PS0
  }
  __portal_wrap
  if [ "$((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1]))" -ge 501 ]; then
    PROMPT_COMMAND+=(__portal_wrap)
  else
    printf -v __portal_nl "\n"
    PROMPT_COMMAND="\${PROMPT_COMMAND:+$PROMPT_COMMAND$__portal_nl}__portal_wrap"
  fi
fi
`;

/** zsh: precmd and preexec hooks, the prompt's marks around PS1 and PS2. */
export const ZSH_HOOKS = sh`
if [[ -z $__portal_si ]]; then
  __portal_si=1
  typeset -g __portal_e=$(printf "\033") __portal_a=$(printf "\007") __portal_n=$(printf "\n_")
  __portal_n=\${__portal_n%_}
  __portal_now="%D{%s.%.}"
  __portal_precmd() {
    printf "\e]7;file://%s\a" "\${PWD//\%/%25}"
    [[ $PS1 == *"133;B"* ]] || PS1="%{$__portal_e]133;D;%?;t=%D{%s.%.}$__portal_a$__portal_e]133;A$__portal_a%}$PS1%{$__portal_e]133;B$__portal_a%}"
    [[ $PS2 == *"633;F"* ]] || PS2="%{$__portal_e]633;F$__portal_a%}$PS2%{$__portal_e]633;G$__portal_a%}"
    typeset +x PS1 PS2
  }
  __portal_preexec() {
    local l=\${1//\\/\\\\}
    l=\${l//;/\\x3b}
    l=\${l//$__portal_n/\\x0a}
    printf "\e]633;E;%s\a\e]133;C;t=%s\a" "$l" "\${(%)__portal_now}"
  }
  typeset -ga precmd_functions preexec_functions
  precmd_functions+=(__portal_precmd)
  preexec_functions+=(__portal_preexec)
fi
`;

/**
 * fish: its preexec and postexec events, and fish_prompt wrapped in the
 * prompt's marks (again after the user picks another prompt), with `$status`
 * kept for the user's prompt.
 */
export const FISH_HOOKS = sh`
if not set -q __portal_si
  set -g __portal_si 1
  function __portal_status
    return $argv[1]
  end
  function __portal_wrap
    functions -q fish_prompt
    and functions fish_prompt | string match -q -- "*133;B*"
    and return
    functions -e __portal_user_prompt
    functions -q fish_prompt
    and functions -c fish_prompt __portal_user_prompt
    or function __portal_user_prompt
    end
    function fish_prompt
      set -l s $status
      printf "\e]7;file://%s\a\e]133;A\a" (string replace -a -- % %25 $PWD)
      __portal_status $s
      __portal_user_prompt
      printf "\e]133;B\a"
    end
  end
  function __portal_preexec --on-event fish_preexec
    printf "\e]633;E;%s\a\e]133;C\a" (string replace -a -- \\ \\\\ $argv[1] | string replace -a -- ";" "\x3b" | string join "\x0a")
  end
  function __portal_postexec --on-event fish_postexec
    set -l s $status
    printf "\e]7;file://%s\a\e]133;D;%s;d=%s\a" (string replace -a -- % %25 $PWD) $s $CMD_DURATION
    __portal_wrap
  end
  __portal_wrap
end
`;
