package txlog.txn

import scala.util.control.NonFatal

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.catalyst.expressions.{
  AttributeReference,
  Expression,
  InterpretedMutableProjection,
  Unevaluable
}
import org.apache.spark.sql.catalyst.plans.logical.{LeafNode, LocalRelation, LogicalPlan, Project}
import org.apache.spark.sql.types.StructType

import txlog.{Metadata, Protocol}
import txlog.util.Lru

/** The add lines of a commit whose staged adds are rows on the driver (a local relation: entries, a
  * `Seq`'s `toDF`, a small staged input), computed without planning a query per commit. The
  * expressions are [[FileActionLines.adds]]' own, optimized once per (input schema, metadata,
  * protocol, restoring, session time zone and ANSI mode) over a placeholder input and evaluated on
  * the rows by Spark's interpreted projection: the same checks and the same JSON as the DataFrame
  * path, without the analysis and optimization a small commit would otherwise spend most of its
  * driver time on (and the JIT compiling them while a writer warms up). Holds at most [[MaxCached]]
  * compiled forms per JVM (each a few expression trees); None where the optimized plan is not
  * projections of the input (the caller then uses the DataFrame path).
  */
private[txlog] object LocalLines {
  val MaxCached = 16

  private final case class Key(
      session: Int,
      schema: StructType,
      md: Metadata,
      p: Protocol,
      restoring: Boolean,
      timeZone: String,
      ansi: Boolean
  )

  /** Projections applied in turn (the optimizer keeps a projection apart when merging it would
    * evaluate a shared expression once per use); by one thread at a time (some expressions, such as
    * `to_json`'s evaluator, keep state between rows, as they do within a Spark task).
    */
  private final class Compiled(stages: Seq[Project], schema: StructType) {
    private val toRow = CatalystTypeConverters.createToScalaConverter(schema)

    def apply(rows: Seq[InternalRow]): Seq[Row] = synchronized {
      val projections = stages.map { p =>
        val projection = new InterpretedMutableProjection(p.projectList, p.child.output)
        projection.initialize(0)
        projection
      }
      rows.map { r =>
        val out = projections.foldLeft(r)((row, projection) => projection(row).copy())
        toRow(out).asInstanceOf[Row]
      }
    }
  }

  private val cache = new Lru[Key, Option[Compiled]](MaxCached)

  /** The rows [[FileActionLines.adds]]`(df, md, p, restoring)` gives, when `df` is a local relation
    * and the projection compiles; None otherwise.
    */
  def adds(df: DataFrame, md: Metadata, p: Protocol, restoring: Boolean): Option[Seq[Row]] =
    df.queryExecution.analyzed match {
      case l: LocalRelation if !l.isStreaming =>
        val spark = df.sparkSession
        val conf = spark.sessionState.conf
        val key = Key(
          System.identityHashCode(spark),
          df.schema,
          md,
          p,
          restoring,
          conf.sessionLocalTimeZone,
          conf.ansiEnabled
        )
        val compiled = cache.getOrElseUpdate(key, compile(spark, df.schema, md, p, restoring))
        compiled.map(_(l.data))
      case _ => None
    }

  private def compile(
      spark: SparkSession,
      schema: StructType,
      md: Metadata,
      p: Protocol,
      restoring: Boolean
  ): Option[Compiled] =
    try {
      // an input Spark cannot fold or prune (rows it does not know): the projection stays
      val placeholder = spark.createDataFrame(spark.sparkContext.emptyRDD[Row], schema)
      val lines = FileActionLines.adds(placeholder, md, p, restoring)
      def evaluable(e: Expression) =
        !e.exists(x => x.isInstanceOf[Unevaluable] && !x.isInstanceOf[AttributeReference])
      // the projections over the input, innermost first; None for any other operator
      def stages(plan: LogicalPlan): Option[(LeafNode, Seq[Project])] = plan match {
        case p @ Project(exprs, child) if exprs.forall(evaluable) =>
          stages(child).map { case (leaf, inner) => (leaf, inner :+ p) }
        case leaf: LeafNode => Some((leaf, Nil))
        case _              => None
      }
      stages(lines.queryExecution.optimizedPlan).collect {
        case (leaf, ps)
            if ps.nonEmpty && leaf.output.map(_.dataType) == schema.fields.toSeq.map(_.dataType) =>
          new Compiled(ps, lines.schema)
      }
    } catch { case NonFatal(_) => None }
}
