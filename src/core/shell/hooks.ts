/**
 * The code Portal adds to bash, zsh and fish so that they mark their
 * prompts and commands (OSC 133 A/B/C/D, 633 E/F/G/P; see marks.ts).
 * It is added to the user's own setup, never in its place: the prompt is
 * wrapped (and wrapped again if the user sets a new one), the hooks are
 * appended to `PROMPT_COMMAND`, `precmd_functions`/`preexec_functions` or
 * fish's events, and a second load changes nothing but the key.
 *
 * Every mark is signed with a key ({@link hooksFor}, `k=` right after the
 * letter) that the shell keeps in `__portal_k`, a variable it does not
 * export: the commands it runs cannot learn it, so what they print cannot
 * pass for a mark of the shell (tracker.ts). bash's prompts name the
 * variable, read as each is drawn; zsh's hold the key (its prompts expand
 * no variables) and are wrapped again when it changes.
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
 * import { hooksFor, oneLine } from "./hooks.ts";
 *
 * assert.equal(oneLine("if true; then\n  a=1\n  b=2\nfi"), "if true; then a=1; b=2; fi");
 * assert.equal(oneLine("f() {\n  # why\n  echo hi\n}"), "f() { echo hi; }");
 * assert.match(hooksFor("fish", "c0ffee"), /^set -gu __portal_k c0ffee\n/);
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
const BASH_HOOKS = sh`
if [ -z "$__portal_si" ] && [ "$((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1]))" -ge 404 ]; then
  __portal_si=1
  __portal_wrap() {
    __portal_cwd=\${PWD//\\/\\\\}
    case "$PS1" in *"133;B"*) ;; *) PS1="\[\e]633;P;k=\$__portal_k;Cwd=\$__portal_cwd\a\e]133;D;k=\$__portal_k;\$?;t=\$EPOCHREALTIME\a\e]133;A;k=\$__portal_k\a\]$PS1\[\e]133;B;k=\$__portal_k\a\]" ;; esac
    case "$PS2" in *"633;F"*) ;; *) PS2="\[\e]633;F;k=\$__portal_k\a\]$PS2\[\e]633;G;k=\$__portal_k\a\]" ;; esac
    case "$PS0" in *"133;C"*) ;; *) PS0="$PS0\e]133;C;k=\$__portal_k;t=\$EPOCHREALTIME\a" ;; esac
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
const ZSH_HOOKS = sh`
if [[ -z $__portal_si ]]; then
  __portal_si=1
  typeset -g __portal_e=$(printf "\033") __portal_a=$(printf "\007") __portal_n=$(printf "\n_")
  __portal_n=\${__portal_n%_}
  __portal_now="%D{%s.%.}"
  __portal_precmd() {
    printf "\e]633;P;k=%s;Cwd=%s\a" "$__portal_k" "\${PWD//\\/\\\\}"
    [[ $PS1 == *"133;B;k=$__portal_k"* ]] || PS1="%{$__portal_e]133;D;k=$__portal_k;%?;t=%D{%s.%.}$__portal_a$__portal_e]133;A;k=$__portal_k$__portal_a%}$PS1%{$__portal_e]133;B;k=$__portal_k$__portal_a%}"
    [[ $PS2 == *"633;F;k=$__portal_k"* ]] || PS2="%{$__portal_e]633;F;k=$__portal_k$__portal_a%}$PS2%{$__portal_e]633;G;k=$__portal_k$__portal_a%}"
    typeset +x PS1 PS2
  }
  __portal_preexec() {
    local l=\${1//\\/\\\\}
    l=\${l//;/\\x3b}
    l=\${l//$__portal_n/\\x0a}
    printf "\e]633;E;k=%s;%s\a\e]133;C;k=%s;t=%s\a" "$__portal_k" "$l" "$__portal_k" "\${(%)__portal_now}"
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
const FISH_HOOKS = sh`
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
      printf "\e]633;P;k=%s;Cwd=%s\a\e]133;A;k=%s\a" $__portal_k (string replace -a -- \\ \\\\ $PWD) $__portal_k
      __portal_status $s
      __portal_user_prompt
      printf "\e]133;B;k=%s\a" $__portal_k
    end
  end
  function __portal_preexec --on-event fish_preexec
    printf "\e]633;E;k=%s;%s\a\e]133;C;k=%s\a" $__portal_k (string replace -a -- \\ \\\\ $argv[1] | string replace -a -- ";" "\x3b" | string join "\x0a") $__portal_k
  end
  function __portal_postexec --on-event fish_postexec
    set -l s $status
    printf "\e]633;P;k=%s;Cwd=%s\a\e]133;D;k=%s;%s;d=%s\a" $__portal_k (string replace -a -- \\ \\\\ $PWD) $__portal_k $s $CMD_DURATION
    __portal_wrap
  end
  __portal_wrap
end
`;

/** The shells Portal has hooks for. */
export type HookedShell = "bash" | "zsh" | "fish";

/**
 * The hooks of `shell`, which sign each mark with `key`: it is set first, in
 * a variable that is not exported (whatever `set -a` says), so the commands
 * the shell runs never see it, and set again by a second load (the hooks
 * read it when they draw a mark), which changes nothing else.
 */
export function hooksFor(shell: HookedShell, key: string): string {
  if (!/^[0-9a-f]+$/.test(key)) throw new Error("a mark key is hex digits");
  switch (shell) {
    case "bash":
      return `__portal_k=${key}\nexport -n __portal_k\n${BASH_HOOKS}`;
    case "zsh":
      return `typeset -g __portal_k=${key}\ntypeset +x __portal_k\n${ZSH_HOOKS}`;
    case "fish":
      return `set -gu __portal_k ${key}\n${FISH_HOOKS}`;
  }
}

/** A new key for the marks of one shell: 128 random bits, in hex. */
export function newMarkKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
