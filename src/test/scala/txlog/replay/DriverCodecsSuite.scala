package txlog.replay

import java.nio.ByteBuffer
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.bytes.BytesInput
import org.apache.parquet.io.ParquetDecodingException
import org.xerial.snappy.Snappy

import txlog.SparkSuite
import txlog.log.TablePath
import txlog.protocol.ActionSchemas

/** [[DriverCodecs]]: checkpoint-shaped files written by Spark with each codec read on the driver as
  * Spark's reader reads them (the oracle), and a snappy page that does not uncompress, or not to
  * its header's size, is a decoding error (the file's fault), not an I/O error.
  */
class DriverCodecsSuite extends SparkSuite {

  private val actions = (0 until 200).map { i =>
    s"""{"add":{"path":"part-$i.parquet","size":${i * 7},"modificationTime":$i,""" +
      s""""dataChange":true,"partitionValues":{"p":"${i % 3}"},"stats":"{\\"numRecords\\":$i}"}}"""
  } :+ """{"remove":{"path":"gone.parquet","deletionTimestamp":5,"dataChange":true}}"""

  test("a file of each codec reads on the driver as Spark reads it") {
    val session = spark
    import session.implicits._
    val schema = ActionSchemas.fileActions
    val source = spark.read.schema(schema).json(actions.toDS()).coalesce(1)
    for (codec <- Seq("snappy", "gzip", "zstd", "uncompressed")) {
      val dir = tempDir(s"codec-$codec")
      val out = dir.resolve("cp").toString
      source.write.option("compression", codec).parquet(out)
      val part = Files.list(Path.of(out)).iterator().asScala.find(_.toString.endsWith(".parquet"))
      val expected = spark.read.schema(schema).parquet(out).collect().map(_.toString).sorted
      val ours = Seq.newBuilder[String]
      val table = TablePath.qualified(dir.toString, new Configuration())
      DriverParquet.foreach(table, part.get.toString, schema)(r => ours += r.toString)
      withClue(codec)(assert(ours.result().sorted === expected.toSeq))
    }
  }

  test("a snappy page uncompresses to snappy-java's input; a bad one is a decoding error") {
    val page = Array.tabulate[Byte](5000)(i => (i % 17).toByte)
    val packed = Snappy.compress(page)
    val pages = new DriverCodecs(new Configuration()).getDecompressor(
      org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY
    )
    assert(pages.decompress(BytesInput.from(packed), page.length).toByteArray === page)
    val out = ByteBuffer.allocate(page.length)
    pages.decompress(ByteBuffer.wrap(packed), packed.length, out, page.length)
    assert(out.array === page)
    intercept[ParquetDecodingException](pages.decompress(BytesInput.from(packed), page.length - 1))
    val garbage = Array.fill[Byte](64)(0xff.toByte)
    intercept[ParquetDecodingException](pages.decompress(BytesInput.from(garbage), 100))
    val cut = packed.take(packed.length / 2)
    intercept[ParquetDecodingException](pages.decompress(BytesInput.from(cut), page.length))
  }
}
