package txlog.write

import java.util.Locale

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Alias, Cast, Expression, Literal}
import org.apache.spark.sql.catalyst.plans.logical.Project
import org.apache.spark.sql.txlog.SparkExpressions
import org.apache.spark.sql.types.StructType

import txlog.Metadata
import txlog.errors.TxlogErrors
import txlog.protocol.{IdentityColumn, IdentityColumns}

/** The identity columns of a table, as its data writer honours them ("Identity Columns"): values
  * generated for the rows that give none, from `start` by `step` beyond the high water mark, which
  * the commit raises to the highest value generated (a metaData action tagged, as delta-spark tags
  * it, `delta.identity.schemaUpdate`, so that concurrent commits that change no metadata do not
  * conflict with it); values given for a `GENERATED ALWAYS` column (`allowExplicitInsert` false),
  * and any update of an identity column, are IDENTITY_COLUMN_VIOLATION before anything is written.
  *
  * {{{
  * IdentityWrites.raised(root, md, IdentityWrites.trackers(df))
  * }}}
  */
private[txlog] object IdentityWrites {

  /** What a DataFrame gives for a column: values it generated, or values of its own (a NULL literal
    * included: only Spark's fill for a column an INSERT leaves out counts as nothing given, and
    * [[leftOutByInsert]] drops that before the write sees it).
    */
  sealed trait Given
  case object Generated extends Given
  case object Explicit extends Given

  /** What `df`'s column `name` holds: Generated when `df` generates values for a column of that
    * name anywhere in its plan (a MERGE's INSERT, which Spark may run as an append), else Explicit.
    */
  def supplied(df: DataFrame, name: String): Given = {
    val generated = df.queryExecution.analyzed.exists(_.expressions.exists(_.exists {
      case v: IdentityValues => v.column.equalsIgnoreCase(name)
      case _                 => false
    }))
    if (generated) Generated else Explicit
  }

  /** The rows a SQL INSERT hands over (Spark's V1 write fallback), without the identity columns of
    * `schema` that its top projection gives as a NULL literal: Spark fills a column an INSERT's
    * column list leaves out with that literal, and such a column is left out, its values generated.
    * Only that path drops them; anywhere else a NULL given is a value given.
    */
  def leftOutByInsert(table: String, df: DataFrame, schema: StructType): DataFrame = {
    val identity = IdentityColumns.of(table, schema).map(_.name.toLowerCase(Locale.ROOT)).toSet
    def isNull(e: Expression): Boolean = e match {
      case a: Alias         => isNull(a.child)
      case c: Cast          => isNull(c.child)
      case Literal(null, _) => true
      case _                => false
    }
    df.queryExecution.analyzed match {
      case Project(list, _) =>
        val dropped = list.collect {
          case e if identity(e.name.toLowerCase(Locale.ROOT)) && isNull(e) => e.name
        }
        if (dropped.isEmpty) df else df.drop(dropped: _*)
      case _ => df
    }
  }

  /** The values of `c` for a write to `table` (a new tracker each call). */
  def generated(spark: SparkSession, table: String, c: IdentityColumn): Column =
    SparkExpressions.column(generator(spark, table, c)).as(c.name)

  /** The generator of `c`'s values for a write to `table`, from its first value beyond the mark
    * (INVALID_METADATA when none is left).
    */
  def generator(spark: SparkSession, table: String, c: IdentityColumn): IdentityValues = {
    val first =
      try c.first
      catch {
        case _: ArithmeticException =>
          throw TxlogErrors.invalidMetadata(table, s"identity column ${c.name} has no value left")
      }
    IdentityValues.of(spark, table, c.name, first, c.step)
  }

  /** The trackers of the values `df` generates. */
  def trackers(df: DataFrame): Seq[IdentityHigh] =
    df.queryExecution.analyzed
      .flatMap(_.expressions.flatMap(_.collect { case v: IdentityValues => v.high }))
      .distinct

  /** `md` with the high water marks the `trackers`' values raise (None when none moves). */
  def raised(table: String, md: Metadata, trackers: Seq[IdentityHigh]): Option[Metadata] = {
    val byColumn = trackers.groupBy(_.column.toLowerCase(java.util.Locale.ROOT))
    val columns = IdentityColumns.of(table, md.schema)
    val marks = columns.flatMap { c =>
      val values =
        byColumn.getOrElse(c.name.toLowerCase(java.util.Locale.ROOT), Nil).flatMap(_.value)
      if (values.isEmpty) None
      else {
        val candidate = if (c.step > 0) values.max else values.min
        c.raised(candidate).map(c.name -> _)
      }
    }.toMap
    if (marks.isEmpty) None else Some(IdentityColumns.withMarks(md, marks))
  }

  /** IDENTITY_COLUMN_VIOLATION: values given for `column`, which generates its own. */
  def explicitInsert(table: String, column: String): Nothing =
    throw TxlogErrors.identityColumnViolation(
      table,
      s"values are given for $column, a GENERATED ALWAYS AS IDENTITY column",
      s"Leave $column out of the data: its values are generated."
    )

  /** IDENTITY_COLUMN_VIOLATION: a MERGE's `INSERT *` into a table with identity column `column`,
    * whose source's columns are not known before Spark resolves the statement.
    */
  def insertStar(table: String, column: String): Nothing =
    throw TxlogErrors.identityColumnViolation(
      table,
      s"INSERT * would give values for identity column $column, or none where Spark " +
        "resolves the source's columns; txlog cannot tell which before then",
      s"Name the columns to insert: INSERT (...) VALUES (...), leaving $column out to have " +
        "its values generated (or let the MERGE evolve the schema, which names the source's " +
        "columns)."
    )

  /** IDENTITY_COLUMN_VIOLATION: an UPDATE or MERGE sets `column`. */
  def update(table: String, column: String): Nothing =
    throw TxlogErrors.identityColumnViolation(
      table,
      s"the statement updates $column, an identity column, which no statement may update",
      s"Leave $column out of the statement's SET."
    )
}
