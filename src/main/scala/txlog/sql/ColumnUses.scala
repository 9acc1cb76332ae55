package txlog.sql

import java.util.Locale

import scala.util.Try

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.types.{DataType, StructType}

import txlog.Metadata
import txlog.protocol.Constraints

/** What refers to a column: the CHECK constraints of a table and its generated columns' expressions
  * name columns by path; a column (or a struct holding it) that one of them names cannot be renamed
  * or dropped without breaking it, as delta-spark refuses
  * (DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE, DELTA_GENERATED_COLUMNS_DEPENDENT_COLUMN_CHANGE).
  *
  * {{{
  * ColumnUses.users(md, Seq("id")) // Seq("CHECK positive") when `positive` is `id > 0`
  * }}}
  */
private[txlog] object ColumnUses {

  private val GenerationKey = "delta.generationExpression"

  /** The constraints and generated columns of `md` naming `path`, a field inside it, or a struct
    * holding it.
    */
  def users(md: Metadata, path: Seq[String]): Seq[String] = {
    val p = path.map(_.toLowerCase(Locale.ROOT))
    val checks = Constraints.checks(md).map(c => c.name -> c.sql)
    val generated = columns(md.schema, Nil).map { case (name, sql) =>
      s"generated column $name" -> sql
    }
    (checks ++ generated).collect {
      case (who, sql) if references(sql).exists(r => r.startsWith(p) || p.startsWith(r)) => who
    }
  }

  /** The column paths (lower case) `sql` names; none when it does not parse. */
  private def references(sql: String): Seq[Seq[String]] =
    Try(CatalystSqlParser.parseExpression(sql)).toOption.toSeq.flatMap { e =>
      e.collect { case a: UnresolvedAttribute => a.nameParts.map(_.toLowerCase(Locale.ROOT)).toSeq }
    }

  private def columns(t: DataType, prefix: Seq[String]): Seq[(String, String)] = t match {
    case s: StructType =>
      s.fields.toSeq.flatMap { f =>
        val here =
          if (f.metadata.contains(GenerationKey)) {
            Seq((prefix :+ f.name).mkString(".") -> f.metadata.getString(GenerationKey))
          } else Nil
        here ++ columns(f.dataType, prefix :+ f.name)
      }
    case _ => Nil
  }
}
