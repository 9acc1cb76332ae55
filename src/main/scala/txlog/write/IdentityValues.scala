package txlog.write

import java.lang.ref.WeakReference
import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import org.apache.spark.TaskContext
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.LeafExpression
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{DataType, LongType}
import org.apache.spark.util.AccumulatorV2

import txlog.errors.TxlogErrors

/** The values of one identity column for the rows one write generates them for ("Identity
  * Columns"): `first + step * (p + k * n)` for the k-th row of task p of n, so that the tasks of
  * one write never give one value twice, each is `start + j * step` with j >= 0, and each lies
  * beyond the high water mark the write read (`first` is the first such value). Overflow is
  * INVALID_METADATA in the task, before any file is committed. The values each task gave are
  * tracked by `high`, whose value after the write is the candidate high water mark.
  *
  * Deterministic in Spark's eyes on purpose: Spark accepts it then in a MERGE's actions (its
  * analysis refuses nondeterministic ones there); each task evaluates its own copy, which starts
  * its sequence from its task's partition, so no two rows of one write share a value.
  *
  * {{{
  * val v = IdentityValues.of(spark, root, "id", first = 1L, step = 1L)
  * df.withColumn("id", SparkExpressions.column(v))
  * }}}
  */
private[txlog] final case class IdentityValues(
    table: String,
    column: String,
    first: Long,
    step: Long,
    high: IdentityHigh
) extends LeafExpression
    with CodegenFallback {

  // null until the first row of a task: a deserialized copy has its transient fields at the JVM's
  // defaults, and 0 is a task attempt's id too
  @transient private var attempt: java.lang.Long = null
  @transient private var next: Long = 0L
  @transient private var increment: Long = 0L

  override def dataType: DataType = LongType
  override def nullable: Boolean = false
  override def prettyName: String = "txlog_identity"
  override def toString: String = s"txlog_identity($column, $first, $step)"

  override def eval(input: InternalRow): Any = synchronized {
    val task = Option(TaskContext.get())
    val id = task.fold(-2L)(_.taskAttemptId())
    if (attempt == null || id != attempt.longValue) {
      // a new task (or the driver, which is one sequence): its own start
      attempt = java.lang.Long.valueOf(id)
      val p = task.fold(0)(_.partitionId()).toLong
      val n = task.fold(1)(_.numPartitions()).toLong
      next = exact(Math.addExact(first, Math.multiplyExact(p, step)))
      increment = exact(Math.multiplyExact(n, step))
    }
    val v = next
    next = exact(Math.addExact(next, increment))
    high.add(v)
    v
  }

  private def exact(v: => Long): Long =
    try v
    catch {
      case _: ArithmeticException =>
        throw TxlogErrors.invalidMetadata(
          table,
          s"the values of identity column $column overflow a BIGINT (first $first, step $step)"
        )
    }
}

private[txlog] object IdentityValues {

  private type Refs = java.util.List[WeakReference[IdentityHigh]]

  // the trackers of live generators per table root: a MERGE's commit reads its statement's here
  private val live = new ConcurrentHashMap[String, Refs]()

  /** A generator for `column` of the table at `table`, its tracker registered with Spark. */
  def of(
      spark: SparkSession,
      table: String,
      column: String,
      first: Long,
      step: Long
  ): IdentityValues = {
    val high = new IdentityHigh(column, step > 0)
    spark.sparkContext.register(high, s"txlog identity $column")
    // added to the list the map holds: one liveFor dropped (empty, under its lock) is not it
    var added = false
    while (!added) {
      val list =
        live.computeIfAbsent(table, _ => new java.util.ArrayList[WeakReference[IdentityHigh]])
      list.synchronized {
        if (live.get(table) eq list) {
          list.removeIf(_.get() == null)
          list.add(new WeakReference(high))
          added = true
        }
      }
    }
    IdentityValues(table, column, first, step, high)
  }

  /** The trackers of `table`'s generators still referenced by a plan (that may run or has run), of
    * those that gave values. The bound is the statements alive in this JVM: a plan's trackers go
    * when the plan is collected.
    */
  def liveFor(table: String): Seq[IdentityHigh] =
    Option(live.get(table)).toSeq.flatMap { list =>
      list.synchronized {
        list.removeIf(_.get() == null)
        // a table none of whose generators lives holds no entry (a new one comes with the next)
        if (list.isEmpty) live.remove(table, list)
        list.asScala.toList.flatMap(r => Option(r.get())).filterNot(_.isZero)
      }
    }
}

/** The highest value (lowest, for a negative step) an [[IdentityValues]] gave in successful tasks.
  */
private[txlog] final class IdentityHigh(val column: String, positive: Boolean)
    extends AccumulatorV2[java.lang.Long, Option[Long]] {
  private var best: Option[Long] = None

  override def isZero: Boolean = best.isEmpty
  override def copy(): IdentityHigh = {
    val c = new IdentityHigh(column, positive)
    c.best = best
    c
  }
  override def reset(): Unit = best = None
  override def add(v: java.lang.Long): Unit = add(v.longValue)
  def add(v: Long): Unit = synchronized {
    best = Some(best.fold(v)(b => if (positive) math.max(b, v) else math.min(b, v)))
  }
  override def merge(other: AccumulatorV2[java.lang.Long, Option[Long]]): Unit =
    other.value.foreach(add)
  override def value: Option[Long] = best
}
