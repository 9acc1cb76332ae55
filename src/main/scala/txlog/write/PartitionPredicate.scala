package txlog.write

import java.util.Locale

import scala.util.control.NonFatal

import org.apache.spark.sql.{Column, SparkSession}
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.txlog.SparkExpressions

import txlog.Metadata
import txlog.errors.TxlogErrors

/** A predicate on a table's partition columns (`date = '2024-06-01' AND region IN ('eu')`), as a
  * condition on the file actions of `Snapshot.allFiles` (over their `partitionValues_parsed`): the
  * files a delete or a `replaceWhere` removes whole. A predicate naming another column, or one that
  * does not parse, is INVALID_ARGUMENT naming `argument`, before anything is read or written.
  */
private[txlog] object PartitionPredicate {

  /** Whether `predicate` names partition columns only (INVALID_ARGUMENT naming `argument` when it
    * is empty or does not parse).
    */
  def partitionOnly(
      spark: SparkSession,
      argument: String,
      predicate: String,
      md: Metadata
  ): Boolean = others(spark, argument, predicate, md)._2.isEmpty

  private def others(spark: SparkSession, argument: String, predicate: String, md: Metadata) = {
    if (predicate == null || predicate.trim.isEmpty) {
      throw TxlogErrors.invalidArgument(argument, "is empty")
    }
    val parsed =
      try spark.sessionState.sqlParser.parseExpression(predicate)
      catch {
        case NonFatal(e) =>
          throw TxlogErrors.invalidArgument(
            argument,
            s"'$predicate' does not parse: ${e.getMessage}"
          )
      }
    val parts = md.partitionColumns.map(c => c.toLowerCase(Locale.ROOT) -> c).toMap
    val names = parsed
      .collect { case a: UnresolvedAttribute => a.nameParts }
      .filterNot(n => n.size == 1 && parts.contains(n.head.toLowerCase(Locale.ROOT)))
    (parsed, names)
  }

  def onFiles(
      spark: SparkSession,
      argument: String,
      predicate: String,
      md: Metadata
  ): Column = {
    val (parsed, others) = this.others(spark, argument, predicate, md)
    val parts = md.partitionColumns.map(c => c.toLowerCase(Locale.ROOT) -> c).toMap
    if (others.nonEmpty) {
      throw TxlogErrors.invalidArgument(
        argument,
        s"'$predicate' names ${others.map(_.mkString(".")).distinct.mkString(", ")}: only " +
          s"partition columns (${md.partitionColumns.mkString(", ")}) may be named, as whole " +
          "files are removed"
      )
    }
    val rewritten = parsed.transform { case a: UnresolvedAttribute =>
      UnresolvedAttribute(
        Seq("partitionValues_parsed", parts(a.nameParts.head.toLowerCase(Locale.ROOT)))
      )
    }
    SparkExpressions.column(rewritten)
  }
}
