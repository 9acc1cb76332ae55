package txlog.sql

import org.apache.spark.sql.{DataFrame, SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.{IntegerType, LongType, ShortType, ByteType, StringType}

import txlog.DeltaLog
import txlog.errors.TxlogErrors

/** txlog's table-valued functions, registered by its session extension so that any SQL client (a
  * Spark Connect client among them, or one that speaks SQL only) reads what the Scala and Python
  * APIs return, by a table's path:
  *   - `txlog_files(path [, version])`: the live files, as `Snapshot.allFiles`;
  *   - `txlog_tombstones(path [, version])`: the unexpired tombstones, as `Snapshot.tombstones`;
  *   - `txlog_history(path [, limit])`: the commits, newest first, as `DeltaLog.history()`;
  *   - `txlog_changes(path, start [, end])`: the change data feed, as `DeltaLog.changes`;
  *   - `txlog_validate_checksum(path [, version])`: the checksum's mismatches, as
  *     `DeltaLog.validateChecksum(...).toDF`;
  *   - `txlog_describe(path)`: one row of `DeltaLog.describe()`'s summary (`json`, snake_case).
  *
  * Arguments are constants: the path a string, versions and limits whole numbers. Anything else, or
  * too few or too many, is INVALID_ARGUMENT naming the function and its form; a version the log
  * does not hold is VERSION_NOT_FOUND, as from the APIs.
  *
  * {{{
  * spark.sql("SELECT path, size FROM txlog_files('/data/events', 3)").show()
  * }}}
  */
private[txlog] object TableFunctions {

  /** A function: its name, its form, and its rows for the arguments given. */
  final case class Function(
      name: String,
      form: String,
      minArgs: Int,
      maxArgs: Int,
      rows: (SparkSession, Args) => DataFrame
  )

  /** The arguments of one call, checked as they are read. */
  final class Args(f: Function, values: Seq[Any]) {
    private def bad(why: String) = TxlogErrors.invalidArgument(f.name, s"$why; call ${f.form}.")

    def path: String = values.head match {
      case s: org.apache.spark.unsafe.types.UTF8String => s.toString
      case _ => throw bad("the first argument is the table's path, a string")
    }

    def long(i: Int, what: String): Option[Long] = values.lift(i).map {
      case n: java.lang.Number if n.longValue >= 0 => n.longValue
      case other => throw bad(s"the $what is a whole number of 0 or more, not $other")
    }

    def log(spark: SparkSession): DeltaLog = DeltaLog.forTable(spark, path)
  }

  val All: Seq[Function] = Seq(
    Function(
      "txlog_files",
      "txlog_files(path [, version])",
      1,
      2,
      (spark, a) => snapshot(spark, a).allFiles
    ),
    Function(
      "txlog_tombstones",
      "txlog_tombstones(path [, version])",
      1,
      2,
      (spark, a) => snapshot(spark, a).tombstones
    ),
    Function(
      "txlog_history",
      "txlog_history(path [, limit])",
      1,
      2,
      (spark, a) => {
        val history = a.log(spark).history()
        a.long(1, "limit").fold(history)(n => history.limit(n.min(Int.MaxValue).toInt))
      }
    ),
    Function(
      "txlog_changes",
      "txlog_changes(path, start [, end])",
      2,
      3,
      (spark, a) => {
        val log = a.log(spark)
        val start = a.long(1, "start version").get
        a.long(2, "end version").fold(log.changes(start))(log.changes(start, _))
      }
    ),
    Function(
      "txlog_validate_checksum",
      "txlog_validate_checksum(path [, version])",
      1,
      2,
      (spark, a) => {
        val log = a.log(spark)
        a.long(1, "version").fold(log.validateChecksum())(log.validateChecksum).toDF(spark)
      }
    ),
    Function(
      "txlog_describe",
      "txlog_describe(path)",
      1,
      1,
      (spark, a) => {
        import spark.implicits._
        Seq(a.log(spark).describe().toJson).toDF("json")
      }
    )
  )

  private def snapshot(spark: SparkSession, a: Args): txlog.Snapshot = {
    val log = a.log(spark)
    a.long(1, "version").fold(log.snapshot())(log.snapshot)
  }

  /** Registers every function with `extensions`. */
  def register(extensions: SparkSessionExtensions): Unit = All.foreach { f =>
    val info = new ExpressionInfo(getClass.getName, null, f.name, f.form, "")
    extensions.injectTableFunction((FunctionIdentifier(f.name), info, plan(f, _)))
  }

  /** The plan of `f` called with `arguments` in the active session. */
  def plan(f: Function, arguments: Seq[Expression]): LogicalPlan = {
    val form = s"call ${f.form}"
    if (arguments.size < f.minArgs || arguments.size > f.maxArgs) {
      throw TxlogErrors.invalidArgument(f.name, s"${arguments.size} arguments given; $form.")
    }
    val values = arguments.map { e =>
      val ok = e.foldable && Seq(StringType, LongType, IntegerType, ShortType, ByteType)
        .contains(e.dataType)
      if (!ok) throw TxlogErrors.invalidArgument(f.name, s"${e.sql} is not a constant; $form.")
      e.eval()
    }
    val spark = SparkSession.active
    f.rows(spark, new Args(f, values)).queryExecution.analyzed
  }
}
