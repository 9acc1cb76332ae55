package txlog.cli

/** The text of `--help`, overall and per command. */
private[txlog] object Help {

  /** A command: its name, summary and options' help text, and the options it accepts: `valued` take
    * a value (`--version 3`), `flags` take none (`--force`). Anything else on its command line is a
    * usage error before anything runs.
    */
  final case class Command(
      name: String,
      summary: String,
      options: String,
      valued: Set[String] = Set.empty,
      flags: Set[String] = Set.empty
  )

  /** What writes or deletes says whether to: `--dry-run` or `--execute`. */
  private val DryRunOrExecute = Set("dry-run", "execute")

  val Commands: Seq[Command] = Seq(
    Command("describe", "DESCRIBE DETAIL's fields and the log's health", ""),
    Command(
      "history",
      "the commit history, newest first",
      "  --limit N   commits shown (20)\n",
      valued = Set("limit")
    ),
    Command(
      "checkpoint",
      "write a checkpoint of the latest version (or --version)",
      "  --version N  --kind classic|multipart|v2  --parts N  --format parquet|json\n" +
        "  --dry-run    say what would be written, write nothing\n",
      valued = Set("version", "kind", "parts", "format", "sidecars"),
      flags = DryRunOrExecute
    ),
    Command(
      "checksum",
      "write the version checksum (.crc) of the latest version (or --version)",
      "  --version N\n  --validate   compare the existing .crc with a replay instead; exit 1 on " +
        "mismatches\n  --dry-run    say what would be written, write nothing\n",
      valued = Set("version"),
      flags = DryRunOrExecute + "validate"
    ),
    Command(
      "compact-log",
      "write the log compaction file of commits --start to --end",
      "  --start N --end N (required)\n  --dry-run    say what would be written\n",
      valued = Set("start", "end"),
      flags = DryRunOrExecute
    ),
    Command(
      "cleanup",
      "metadata cleanup of expired log files (a dry run unless --execute)",
      "  --retention DURATION   e.g. '30 days' (default: delta.logRetentionDuration)\n" +
        "  --dry-run    list what would be deleted (the default)\n" +
        "  --force      allow a retention shorter than the table's\n" +
        "  --execute    delete it\n",
      valued = Set("retention"),
      flags = DryRunOrExecute + "force"
    ),
    Command(
      "validate",
      "audit the whole history; exit 1 when a finding has severity error",
      ""
    ),
    Command(
      "vacuum",
      "delete data files no version within the retention needs (a dry run unless --execute)",
      "  --retain-hours N   retention in hours (default: delta.deletedFileRetentionDuration)\n" +
        "  --force      allow a retention shorter than the table's\n" +
        "  --lite       read the log's remove actions instead of listing the table\n" +
        "  --allow-unrelated-paths   go on when the log names paths on another store than\n" +
        "               the root's (by default vacuum refuses: they may be live files)\n" +
        "  --dry-run    list what would be deleted (the default)\n" +
        "  --execute    delete it\n",
      valued = Set("retain-hours"),
      flags = DryRunOrExecute ++ Set("force", "lite", "allow-unrelated-paths")
    ),
    Command(
      "repair",
      "fix what validate finds without rewriting commits (a dry run unless --execute)",
      "  set aside and rewrite bad checkpoints and .crc files, rebuild _last_checkpoint,\n" +
        "  remove files whose data file is missing (one FSCK commit);\n" +
        "  exit 1 when a dry run finds work or a repair leaves a fault it cannot fix\n" +
        "  --remove-files-with-missing-dv   also remove files whose deletion vector file is\n" +
        "               missing (their surviving rows go too; by default they are reported)\n" +
        "  --force      remove more than 10% of the live files (refused otherwise)\n" +
        "  --dry-run    list the actions (the default)\n" +
        "  --execute    do them\n",
      flags = DryRunOrExecute ++ Set("force", "remove-files-with-missing-dv")
    ),
    Command(
      "optimize",
      "compact small files into files of about the target size (a dry run unless --execute)",
      "  --where SQL        a condition on partition columns (default: every partition)\n" +
        "  --target-size N    bytes per file written (default 1 GiB, as delta-spark)\n" +
        "  --min-file-size N  files smaller than this are compacted (default 1 GiB)\n" +
        "  --dry-run    say how many files would be compacted into how many (the default)\n" +
        "  --execute    compact them (one OPTIMIZE commit; deletes no data file)\n",
      valued = Set("where", "target-size", "min-file-size"),
      flags = DryRunOrExecute
    ),
    Command(
      "purge",
      "rewrite the files that have deletion vectors without them (a dry run unless --execute)",
      "  --where SQL  a condition on partition columns (default: every partition)\n" +
        "  --dry-run    say how many files would be rewritten (the default)\n" +
        "  --execute    rewrite them (one REORG commit; deletes no data file)\n",
      valued = Set("where"),
      flags = DryRunOrExecute
    ),
    Command(
      "restore",
      "restore the table to an older version (one RESTORE commit; deletes no data file)",
      "  --version N | --timestamp TS   the version, or the latest commit at or before TS\n" +
        "               ('yyyy-MM-dd[ HH:mm:ss]' in UTC, or with its own zone or offset)\n" +
        "  --force      restore even when data files of that version are missing\n" +
        "  --dry-run    compute the metrics, commit nothing\n",
      valued = Set("version", "timestamp"),
      flags = DryRunOrExecute + "force"
    )
  )

  private val Common =
    """Common options:
      |  --table PATH        a table to work on (repeatable)
      |  --tables-file FILE  a file of table paths, one a line ('#' starts a comment)
      |  --json              one JSON document per table on stdout (text otherwise)
      |  --help              this help
      |Progress goes to stderr, one line per step with its elapsed time.
      |Unknown options, options of another command and options without their value are
      |usage errors: nothing runs.
      |With --json, one document per table whatever happened, each with exit_code and
      |retryable (and on failure error.error_class and error.message).
      |Exit codes (the highest over all tables): 0 done, 1 findings or mismatches,
      |2 usage error, 3 refused (unsupported feature, retention too short, files missing),
      |4 failure worth retrying (storage, concurrent commit), 5 other failure (no table,
      |corrupt log, unexpected error).
      |""".stripMargin

  def overall: String =
    "usage: <txlog> <command> --table PATH [--table PATH ...] [options]\n" +
      "  (spark-submit --class txlog.cli.Main txlog.jar ..., or python -m txlog ...)\n\n" +
      "Commands:\n" +
      Commands.map(c => f"  ${c.name}%-12s ${c.summary}").mkString("\n") + "\n\n" + Common

  def of(command: String): Option[String] = Commands.find(_.name == command).map { c =>
    s"usage: <txlog> ${c.name} --table PATH [options]\n${c.summary}\n" +
      (if (c.options.isEmpty) "" else s"Options:\n${c.options}") + "\n" + Common
  }
}
