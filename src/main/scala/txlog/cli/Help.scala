package txlog.cli

/** The text of `--help`, overall and per command. */
private[txlog] object Help {

  /** One option of a command: `--name` with a value (`metavar` names it: `--version N`) or a flag
    * (no metavar), its help, and whether it is what the command does without being told
    * (`--dry-run` of the commands that delete).
    */
  final case class Opt(
      name: String,
      metavar: Option[String],
      help: String,
      isDefault: Boolean = false
  ) {
    def usage: String = s"--$name" + metavar.fold("")(" " + _)

    /** The help text, with "(the default)" when it is. */
    def text: String = if (isDefault) s"$help (the default)" else help
  }

  private def valued(name: String, metavar: String, help: String) = Opt(name, Some(metavar), help)
  private def flag(name: String, help: String) = Opt(name, None, help)

  /** A command: its name, summary, notes (help text before its options) and the options it accepts,
    * the one definition its parsing ([[Args]]), its help and its usage errors ([[Usage]]) derive
    * from. Anything else on its command line is a usage error before anything runs.
    */
  final case class Command(name: String, summary: String, notes: String, opts: Seq[Opt]) {

    /** Options taking a value (`--version 3`). */
    def valued: Set[String] = opts.filter(_.metavar.isDefined).map(_.name).toSet

    /** Options taking none (`--force`). */
    def flags: Set[String] = opts.filter(_.metavar.isEmpty).map(_.name).toSet

    /** Whether the command is a dry run unless `--execute` is given. */
    def dryRunByDefault: Boolean = opts.exists(o => o.name == "dry-run" && o.isDefault)

    /** The help text of the options, one a line (continued lines indented). */
    def options: String = notes + opts.map { o =>
      val lines = o.text.split('\n')
      f"  ${o.usage}%-30s ${lines.head}\n" + lines.tail.map(l => " " * 33 + l + "\n").mkString
    }.mkString
  }

  /** What writes or deletes says whether to: `--dry-run` or `--execute`, and which is the default.
    * The one rule, the same in Scala, Python and here: what deletes files from storage, or removes
    * files from the table for good (cleanup, vacuum, repair), is a dry run unless told otherwise;
    * what deletes no file and commits what a RESTORE can undo acts unless told to be a dry run.
    */
  private def dryRunByDefault(what: String, done: String) = Seq(
    Opt("dry-run", None, what, isDefault = true),
    flag("execute", done)
  )
  private def writesByDefault(what: String, done: String) = Seq(
    flag("dry-run", what),
    Opt("execute", None, done, isDefault = true)
  )

  val Commands: Seq[Command] = Seq(
    Command("describe", "DESCRIBE DETAIL's fields and the log's health", "", Nil),
    Command(
      "history",
      "the commit history, newest first",
      "",
      Seq(valued("limit", "N", "commits shown (20)"))
    ),
    Command(
      "checkpoint",
      "write a checkpoint of the latest version (or --version)",
      "",
      Seq(
        valued("version", "N", "the version to checkpoint (default: the latest)"),
        valued("kind", "classic|multipart|v2", "default: the table's delta.checkpointPolicy"),
        valued("parts", "N", "with --kind multipart: the number of parts (>= 2)"),
        valued("format", "parquet|json", "with --kind v2: the top-level file's format"),
        valued("sidecars", "true|false", "with --kind v2: file actions in sidecars (true)")
      ) ++ writesByDefault("say what would be written, write nothing", "write it")
    ),
    Command(
      "checksum",
      "write the version checksum (.crc) of the latest version (or --version)",
      "",
      Seq(
        valued("version", "N", "the version (default: the latest)"),
        flag("validate", "compare the existing .crc with a replay instead; exit 1 on mismatches")
      ) ++ writesByDefault("say what would be written, write nothing", "write it")
    ),
    Command(
      "compact-log",
      "write the log compaction file of commits --start to --end",
      "",
      Seq(
        valued("start", "N", "the first commit (required)"),
        valued("end", "N", "the last commit (required)")
      ) ++ writesByDefault("say what would be written, write nothing", "write it")
    ),
    Command(
      "cleanup",
      "metadata cleanup of expired log files (a dry run unless --execute)",
      "",
      Seq(
        valued("retention", "DURATION", "e.g. '30 days' (default: delta.logRetentionDuration)"),
        flag("force", "allow a retention shorter than the table's")
      ) ++ dryRunByDefault("list what would be deleted", "delete it")
    ),
    Command(
      "validate",
      "audit the whole history; exit 1 when a finding has severity error",
      "",
      Nil
    ),
    Command(
      "vacuum",
      "delete data files no version within the retention needs (a dry run unless --execute)",
      "",
      Seq(
        valued(
          "retain-hours",
          "N",
          "retention in hours (default: delta.deletedFileRetentionDuration)"
        ),
        flag("force", "allow a retention shorter than the table's"),
        flag("lite", "read the log's remove actions instead of listing the table"),
        flag(
          "allow-unrelated-paths",
          "go on when the log names paths on another store than the root's\n" +
            "(by default vacuum refuses: they may be live files)"
        )
      ) ++ dryRunByDefault("list what would be deleted", "delete it")
    ),
    Command(
      "repair",
      "fix what validate finds without rewriting commits (a dry run unless --execute)",
      "  set aside and rewrite bad checkpoints and .crc files, rebuild _last_checkpoint,\n" +
        "  remove files whose data file is missing (one FSCK commit);\n" +
        "  exit 1 when a dry run finds work or a repair leaves a fault it cannot fix\n",
      Seq(
        flag(
          "remove-files-with-missing-dv",
          "also remove files whose deletion vector file is missing\n" +
            "(their surviving rows go too; by default they are reported)"
        ),
        flag("force", "remove more than 10% of the live files (refused otherwise)")
      ) ++ dryRunByDefault("list the actions", "do them")
    ),
    Command(
      "optimize",
      "compact small files into files of about the target size (one OPTIMIZE commit)",
      "",
      Seq(
        valued("where", "SQL", "a condition on partition columns (default: every partition)"),
        valued("target-size", "N", "bytes per file written (default 1 GiB, as delta-spark)"),
        valued("min-file-size", "N", "files smaller than this are compacted (default 1 GiB)")
      ) ++ writesByDefault(
        "say how many files would be compacted into how many",
        "compact them (one OPTIMIZE commit; deletes no data file)"
      )
    ),
    Command(
      "purge",
      "rewrite the files that have deletion vectors without them (one REORG commit)",
      "",
      Seq(
        valued("where", "SQL", "a condition on partition columns (default: every partition)")
      ) ++ writesByDefault(
        "say how many files would be rewritten",
        "rewrite them (one REORG commit; deletes no data file)"
      )
    ),
    Command(
      "restore",
      "restore the table to an older version (one RESTORE commit; deletes no data file)",
      "",
      Seq(
        valued("version", "N", "the version to restore"),
        valued(
          "timestamp",
          "TS",
          "or the latest commit at or before TS ('yyyy-MM-dd[ HH:mm:ss]'\n" +
            "in UTC, or with its own zone or offset)"
        ),
        flag("force", "restore even when data files of that version are missing")
      ) ++ writesByDefault("compute the metrics, commit nothing", "commit it")
    )
  )

  /** The options every command takes, with the tables. */
  val CommonOpts: Seq[Opt] = Seq(
    valued("table", "PATH", "a table to work on (repeatable)"),
    valued("tables-file", "FILE", "a file of table paths, one a line ('#' starts a comment)"),
    flag("json", "one JSON document per table on stdout (text otherwise)"),
    flag("help", "this help")
  )

  private val Common =
    "Common options:\n" + CommonOpts.map(o => f"  ${o.usage}%-19s ${o.help}\n").mkString +
      """Progress goes to stderr, one line per step with its elapsed time.
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
