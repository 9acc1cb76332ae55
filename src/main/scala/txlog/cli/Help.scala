package txlog.cli

/** The text of `--help`, overall and per command. */
private[txlog] object Help {

  final case class Command(name: String, summary: String, options: String)

  val Commands: Seq[Command] = Seq(
    Command("describe", "DESCRIBE DETAIL's fields and the log's health", ""),
    Command(
      "history",
      "the commit history, newest first",
      "  --limit N   commits shown (20)\n"
    ),
    Command(
      "checkpoint",
      "write a checkpoint of the latest version (or --version)",
      "  --version N  --kind classic|multipart|v2  --parts N  --format parquet|json\n" +
        "  --dry-run    say what would be written, write nothing\n"
    ),
    Command(
      "checksum",
      "write the version checksum (.crc) of the latest version (or --version)",
      "  --version N\n  --validate   compare the existing .crc with a replay instead; exit 1 on " +
        "mismatches\n  --dry-run    say what would be written, write nothing\n"
    ),
    Command(
      "compact-log",
      "write the log compaction file of commits --start to --end",
      "  --start N --end N (required)\n  --dry-run    say what would be written\n"
    ),
    Command(
      "cleanup",
      "metadata cleanup of expired log files (a dry run unless --execute)",
      "  --retention DURATION   e.g. '30 days' (default: delta.logRetentionDuration)\n" +
        "  --dry-run    list what would be deleted (the default)\n" +
        "  --execute    delete it\n"
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
        "  --dry-run    list what would be deleted (the default)\n" +
        "  --execute    delete it\n"
    ),
    Command(
      "repair",
      "fix what validate finds without rewriting commits (a dry run unless --execute)",
      "  set aside and rewrite bad checkpoints and .crc files, rebuild _last_checkpoint,\n" +
        "  remove files whose data or deletion vector file is missing (one FSCK commit);\n" +
        "  exit 1 when a dry run finds work or a repair leaves a fault it cannot fix\n" +
        "  --dry-run    list the actions (the default)\n" +
        "  --execute    do them\n"
    ),
    Command(
      "restore",
      "restore the table to an older version (one RESTORE commit; deletes no data file)",
      "  --version N | --timestamp TS   the version, or the latest commit at or before TS\n" +
        "               ('yyyy-MM-dd[ HH:mm:ss]' in the session time zone, or with an offset)\n" +
        "  --force      restore even when data files of that version are missing\n" +
        "  --dry-run    compute the metrics, commit nothing\n"
    )
  )

  private val Common =
    """Common options:
      |  --table PATH        a table to work on (repeatable)
      |  --tables-file FILE  a file of table paths, one a line ('#' starts a comment)
      |  --json              one JSON document per table on stdout (text otherwise)
      |  --help              this help
      |Progress goes to stderr, one line per step with its elapsed time.
      |Exit codes (the highest over all tables): 0 done, 1 findings or mismatches,
      |2 usage error or unreadable table, 3 refused (unsupported feature).
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
