package txlog.sql

import java.util.Locale

import scala.util.control.NonFatal

import org.apache.spark.sql.functions.expr
import org.apache.spark.sql.types.BooleanType

import txlog.{Metadata, Protocol, Transaction}
import txlog.errors.TxlogErrors
import txlog.protocol.{Constraints, TableFeatures}
import txlog.table.TableContext

/** `ALTER TABLE ... ADD CONSTRAINT name CHECK (condition)` and `ALTER TABLE ... DROP CONSTRAINT [IF
  * EXISTS] name` on a txlog table (spec, "CHECK Constraints"), as delta-spark runs them: the
  * constraint is the table property `delta.constraints.<name>` (the name lower-cased, the
  * condition's text as delta-spark keeps it), added or removed by one commit (`ADD CONSTRAINT` /
  * `DROP CONSTRAINT`, with delta-spark's parameters: the name, the condition, whether it existed).
  * Adding raises the protocol to support `checkConstraints` as delta-spark does (a legacy protocol
  * to writer version 3, one of table features by the feature); the commit's writer rules check
  * every row of the version read against a new condition before anything is written
  * (CONSTRAINT_VIOLATION naming how many rows break it), reading the whole table so that a
  * concurrent append conflicts.
  *
  * INVALID_ARGUMENT, nothing written: a name already in use (delta-spark's
  * DELTA_CONSTRAINT_ALREADY_EXISTS), a condition that does not resolve on the table's columns or is
  * not boolean (DELTA_NON_BOOLEAN_CHECK_CONSTRAINT), dropping a name not in use without `IF EXISTS`
  * (DELTA_CONSTRAINT_DOES_NOT_EXIST).
  *
  * {{{
  * TableConstraints.add(log.context, "positive_id", "id > 0")
  * TableConstraints.drop(log.context, "positive_id", ifExists = false)
  * }}}
  */
private[txlog] object TableConstraints {

  private val Feature = "checkConstraints"

  /** Adds the CHECK constraint `name` with `condition`: one commit. */
  def add(ctx: TableContext, name: String, condition: String): Unit = {
    val txn = Transaction.start(ctx)
    val snap = txn.readSnapshot.getOrElse(throw TxlogErrors.tableNotFound(ctx.root))
    val md = snap.metadata
    existing(md, name).foreach { case (_, old) =>
      throw TxlogErrors.invalidArgument(
        "ADD CONSTRAINT",
        s"$name: ${ctx.root} already has a constraint of that name, CHECK ($old) (delta-spark: " +
          "DELTA_CONSTRAINT_ALREADY_EXISTS); drop it first"
      )
    }
    val typed =
      try snap.toDF.select(expr(condition)).schema.head.dataType
      catch {
        case NonFatal(e) =>
          throw TxlogErrors.invalidArgument(
            "CHECK",
            s"($condition) does not resolve on the columns of ${ctx.root}: ${firstLine(e)}"
          )
      }
    if (typed != BooleanType) {
      throw TxlogErrors.invalidArgument(
        "CHECK",
        s"($condition) is ${typed.sql}, not BOOLEAN (delta-spark: " +
          "DELTA_NON_BOOLEAN_CHECK_CONSTRAINT)"
      )
    }
    // as delta-spark raises it: a legacy protocol to the writer version that implies CHECK
    // constraints, a protocol of table features by the feature
    val cur = snap.protocol
    val needed =
      if (cur.minWriterVersion >= 7) TableFeatures.withFeatures(cur, Set(Feature))
      else {
        val (reader, writer) = TableFeatures.Legacy(Feature)
        Protocol(cur.minReaderVersion.max(reader), cur.minWriterVersion.max(writer), None, None)
      }
    if (needed != cur) txn.upgradeProtocol(needed)
    val key = Constraints.CheckKey + name.toLowerCase(Locale.ROOT)
    txn.updateMetadata(md.copy(configuration = md.configuration + (key -> condition)))
    txn.commit("ADD CONSTRAINT", Map("name" -> name, "expr" -> condition))
    ()
  }

  /** Drops the CHECK constraint `name`: one commit (also when absent and `ifExists`, as
    * delta-spark's).
    */
  def drop(ctx: TableContext, name: String, ifExists: Boolean): Unit = {
    val txn = Transaction.start(ctx)
    val snap = txn.readSnapshot.getOrElse(throw TxlogErrors.tableNotFound(ctx.root))
    val md = snap.metadata
    val old = existing(md, name)
    if (old.isEmpty && !ifExists) {
      throw TxlogErrors.invalidArgument(
        "DROP CONSTRAINT",
        s"$name: ${ctx.root} has no constraint of that name (delta-spark: " +
          "DELTA_CONSTRAINT_DOES_NOT_EXIST); use DROP CONSTRAINT IF EXISTS to accept that"
      )
    }
    val kept = md.configuration -- old.map(_._1)
    txn.updateMetadata(md.copy(configuration = kept))
    val parameters = Map("name" -> name, "existed" -> old.isDefined.toString)
    txn.commit("DROP CONSTRAINT", parameters ++ old.map("expr" -> _._2))
    ()
  }

  /** The property and condition of the constraint `name` (any case) of `md`. */
  private def existing(md: Metadata, name: String): Option[(String, String)] = {
    val key = Constraints.CheckKey + name.toLowerCase(Locale.ROOT)
    md.configuration.find(_._1.toLowerCase(Locale.ROOT) == key)
  }

  private def firstLine(e: Throwable): String =
    String.valueOf(e.getMessage).linesIterator.toSeq.headOption.getOrElse("")
}
