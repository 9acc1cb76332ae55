package txlog.protocol

import org.apache.spark.sql.types.{LongType, MetadataBuilder, StructField, StructType}

import txlog.Metadata
import txlog.errors.TxlogErrors

/** One identity column of a table's schema ("Identity Columns"): its `delta.identity.*` keys.
  *
  * @param highWaterMark
  *   the highest value generated so far (lowest, for a negative step), if any was
  */
private[txlog] final case class IdentityColumn(
    name: String,
    start: Long,
    step: Long,
    highWaterMark: Option[Long],
    allowExplicitInsert: Boolean
) {
  private def positive = step > 0

  /** `a` comes before `b` in the step's direction. */
  private def before(a: Long, b: Long): Boolean = if (positive) a < b else a > b

  /** The first value a write generates: `start + k * step`, k >= 0, beyond the high water mark.
    * Example: `IdentityColumn("id", 1, 1, Some(7), false).first == 8`.
    */
  def first: Long = highWaterMark match {
    case Some(h) if !before(h, start) =>
      // k = floor((h - start) / step) + 1: the step's multiples are exact, so is the division
      Math.addExact(start, Math.multiplyExact(step, Math.addExact((h - start) / step, 1L)))
    case _ => start
  }

  /** `value` rounded to the next `start + k * step` in the step's direction (itself when it is
    * one), as delta-spark rounds a candidate high water mark.
    */
  private def rounded(value: Long): Long = {
    val offset = Math.subtractExact(value, start)
    if (offset % step == 0) value
    else {
      val k = offset / step
      // past the start, the next multiple; before it, truncation already rounds toward it
      val next = if (java.lang.Long.signum(offset) == java.lang.Long.signum(step)) k + 1 else k
      Math.addExact(start, Math.multiplyExact(step, next))
    }
  }

  /** The high water mark after a write whose generated values reach `candidate`, None when it
    * stays: delta-spark's rule (a candidate before the start moves nothing, unless the mark is
    * itself before the start; the mark never goes back).
    */
  def raised(candidate: Long): Option[Long] = {
    val r = rounded(candidate)
    val next = highWaterMark.fold(r)(h => if (before(h, r)) r else h)
    val bad = highWaterMark.exists(before(_, start))
    if (bad || (!before(candidate, start) && !highWaterMark.contains(next))) Some(next) else None
  }
}

/** The identity columns of a table's schema ("Identity Columns"): the `delta.identity.*` keys of
  * its top-level BIGINT columns, checked, and the schema with high water marks raised. The data
  * writer generates their values ([[txlog.write.IdentityWrites]]).
  *
  * {{{
  * IdentityColumns.of(root, md.schema).map(_.name)
  * }}}
  */
private[txlog] object IdentityColumns {
  val Start = "delta.identity.start"
  val Step = "delta.identity.step"
  val HighWaterMark = "delta.identity.highWaterMark"
  val AllowExplicitInsert = "delta.identity.allowExplicitInsert"

  /** The commitInfo tag of a commit whose metadata changes only high water marks. */
  val SchemaUpdateTag = "delta.identity.schemaUpdate"

  /** Whether `f` declares identity keys (inconsistent ones included: [[of]] refuses them). */
  def declares(f: StructField): Boolean =
    Seq(Start, Step, AllowExplicitInsert).exists(f.metadata.contains)

  /** The identity columns of `schema` (top-level, as the protocol defines them). INVALID_METADATA
    * for keys that are not all there, a step of 0, a type other than BIGINT, or identity keys on a
    * nested field.
    */
  def of(table: String, schema: StructType): Seq[IdentityColumn] = {
    nested(table, schema, "")
    schema.fields.toSeq.filter(declares).map { f =>
      val md = f.metadata
      val missing = Seq(Start, Step, AllowExplicitInsert).filterNot(md.contains)
      def bad(why: String) =
        TxlogErrors.invalidMetadata(table, s"identity column ${f.name}: $why")
      if (missing.nonEmpty) throw bad(s"lacks ${missing.mkString(", ")}")
      if (f.dataType != LongType) throw bad(s"is ${f.dataType.simpleString}, not bigint")
      val c = scala.util
        .Try(
          IdentityColumn(
            f.name,
            md.getLong(Start),
            md.getLong(Step),
            if (md.contains(HighWaterMark)) Some(md.getLong(HighWaterMark)) else None,
            md.getBoolean(AllowExplicitInsert)
          )
        )
        .getOrElse(throw bad("its keys are not numbers and a boolean"))
      if (c.step == 0) throw bad("its step is 0")
      c
    }
  }

  private def nested(table: String, t: StructType, prefix: String): Unit =
    t.fields.foreach { f =>
      if (prefix.nonEmpty && declares(f)) {
        throw TxlogErrors.invalidMetadata(
          table,
          s"$prefix${f.name} has identity keys; only top-level columns can be identity columns"
        )
      }
      f.dataType match {
        case s: StructType => nested(table, s, s"$prefix${f.name}.")
        case _             => ()
      }
    }

  /** INVALID_METADATA for identity columns a new table cannot have, as delta-spark refuses them:
    * one that is a partition column or has a generation expression too (and those [[of]] refuses).
    */
  def checkNew(table: String, md: Metadata): Unit =
    of(table, md.schema).foreach { c =>
      def bad(why: String) = TxlogErrors.invalidMetadata(table, s"identity column ${c.name} $why")
      if (md.partitionColumns.exists(_.equalsIgnoreCase(c.name))) {
        throw bad("is a partition column; identity columns cannot be")
      }
      if (md.schema(c.name).metadata.contains("delta.generationExpression")) {
        throw bad("has a generation expression too")
      }
    }

  /** Whether a commit of `md` may keep the identity columns it has, the data writer generating
    * their values ([[txlog.write.IdentityWrites]]): on an existing table (`current`), when it
    * raises a high water mark or keeps it, and neither adds, drops nor redefines a column; on a new
    * table, when [[checkNew]] passes (INVALID_METADATA otherwise).
    */
  def allowed(table: String, current: Option[Metadata], md: Metadata): Boolean = current match {
    case Some(c) => kept(table, c.schema, md.schema)
    case None    => checkNew(table, md); true
  }

  /** Whether `after` has the identity columns of `before`, defined alike, their high water marks
    * raised or kept: what a commit to an existing table may do to them.
    */
  def kept(table: String, before: StructType, after: StructType): Boolean = {
    val (a, b) = (of(table, before), of(table, after))
    a.size == b.size && a.zip(b).forall { case (x, y) =>
      x.copy(highWaterMark = None) == y.copy(highWaterMark = None) &&
      x.highWaterMark.forall { h =>
        y.highWaterMark.exists(n => if (x.step > 0) n >= h else n <= h)
      }
    }
  }

  /** `md` with the high water marks of `marks` (by column name) set. */
  def withMarks(md: Metadata, marks: Map[String, Long]): Metadata = {
    val schema = StructType(md.schema.fields.map { f =>
      marks.get(f.name).fold(f) { h =>
        val kept = new MetadataBuilder().withMetadata(f.metadata)
        f.copy(metadata = kept.putLong(HighWaterMark, h).build())
      }
    })
    md.copy(schemaString = schema.json)
  }
}
