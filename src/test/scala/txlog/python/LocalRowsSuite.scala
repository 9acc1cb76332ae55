package txlog.python

import java.util.Base64

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation
import org.apache.spark.sql.txlog.SparkPlans
import org.apache.spark.sql.types.StringType
import org.apache.spark.unsafe.types.UTF8String

import txlog.SparkSuite

/** [[LocalRows]] pickles the rows of a local relation up to its limit, in parts past one py4j
  * answer, and gives null (Python then collects as PySpark does) for any other plan and past the
  * limit. That the rows are `collect()`'s own is tests/test_local_rows.py's.
  */
class LocalRowsSuite extends SparkSuite {
  private def local(rows: Int, chars: Int) = {
    val text = UTF8String.fromString("x" * chars)
    val attr = AttributeReference("s", StringType)()
    SparkPlans.dataFrame(spark, LocalRelation(Seq(attr), Seq.fill(rows)(InternalRow(text))))
  }

  private def text(answer: AnyRef): String = answer match {
    case s: String           => s
    case p: PythonText.Parts => (0 until p.count()).map(p.part).mkString
  }

  test("a local relation's rows are pickled, in parts when past one answer") {
    val small = LocalRows.of(local(2, 10))
    assert(small.isInstanceOf[String])
    // a pickle: protocol 2's PROTO opcode first, STOP last
    val bytes = Base64.getDecoder.decode(text(small))
    assert(bytes.head == 0x80.toByte && bytes.last == '.'.toByte)
    val large = LocalRows.of(local(100, 1000))
    assert(large.isInstanceOf[PythonText.Parts])
    assert(Base64.getDecoder.decode(text(large)).length > 100 * 1000)
  }

  test("null for a plan the driver does not hold, and past the limit") {
    assert(LocalRows.of(spark.range(3).toDF()) == null)
    assert(LocalRows.of(local(1, 1000).where("s = 'x'")) == null)
    assert(LocalRows.of(local(LocalRows.MaxBytes / 1000 + 1, 1000)) == null)
    assert(LocalRows.of(local(LocalRows.MaxBytes / 2000, 1000)) != null)
  }
}
