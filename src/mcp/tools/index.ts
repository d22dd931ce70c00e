/**
 * The tool list: every tool Portal offers, in the order `tools/list` shows
 * them. The server registers exactly these; the tool-list test checks against
 * them.
 *
 * @module
 */
import type { AnyTool } from "./tool.ts";
import { processStart } from "./process_start.ts";
import { processRead } from "./process_read.ts";
import { processReadNew } from "./process_read_new.ts";
import { processWrite } from "./process_write.ts";
import { processSignal } from "./process_signal.ts";
import { processList } from "./process_list.ts";
import { processInspect } from "./process_inspect.ts";
import { processKill } from "./process_kill.ts";
import { processKillAll } from "./process_kill_all.ts";
import { processClear } from "./process_clear.ts";
import { processCleanup } from "./process_cleanup.ts";
import { processScreen } from "./process_screen.ts";
import { processWatch } from "./process_watch.ts";
import { programQuery } from "./program_query.ts";
import { programRecord } from "./program_record.ts";

export const TOOLS: readonly AnyTool[] = [
  processStart,
  processRead,
  processReadNew,
  processWrite,
  processSignal,
  processList,
  processInspect,
  processKill,
  processKillAll,
  processClear,
  processCleanup,
  processScreen,
  processWatch,
  programQuery,
  programRecord,
];
