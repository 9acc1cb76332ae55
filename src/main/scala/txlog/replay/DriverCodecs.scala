package txlog.replay

import java.nio.ByteBuffer

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.bytes.BytesInput
import org.apache.parquet.compression.CompressionCodecFactory
import org.apache.parquet.compression.CompressionCodecFactory.{
  BytesInputCompressor,
  BytesInputDecompressor
}
import org.apache.parquet.hadoop.CodecFactory
import org.apache.parquet.hadoop.metadata.CompressionCodecName
import org.apache.parquet.io.ParquetDecodingException
import org.xerial.snappy.Snappy

/** The page decompressors of [[DriverParquet]]'s readers: a snappy page (what delta-spark and txlog
  * write checkpoints with) is uncompressed by snappy-java (on every Spark's classpath) straight
  * into an array of the page's size; any other codec by parquet-mr's own factory on `conf`.
  *
  * parquet-mr uncompresses a snappy page through Hadoop's stream API, which allocates and zeroes a
  * buffer of `io.file.buffer.size` (64 KiB under Spark) for every page, a dictionary page too: a
  * quarter of the time a small checkpoint took to read on the driver (JFR, W15 of issue #66). A
  * page that does not uncompress, or not to the size its header gives, is a
  * ParquetDecodingException (the file's fault: Spark's reader then reads it and raises what a user
  * sees), not an I/O error.
  *
  * One per reader (parquet-mr's factory is not safe to share between threads); the reader releases
  * it when it closes.
  *
  * {{{
  * HadoopReadOptions.builder(conf).withCodecFactory(new DriverCodecs(conf)).build()
  * }}}
  */
private[replay] final class DriverCodecs(conf: Configuration) extends CompressionCodecFactory {
  private var others: CodecFactory = _

  private def parquets: CodecFactory = {
    if (others == null) others = new CodecFactory(conf, 0)
    others
  }

  def getDecompressor(codec: CompressionCodecName): BytesInputDecompressor =
    if (codec == CompressionCodecName.SNAPPY) DriverCodecs.SnappyPages
    else parquets.getDecompressor(codec)

  def getCompressor(codec: CompressionCodecName): BytesInputCompressor =
    parquets.getCompressor(codec)

  def release(): Unit = if (others != null) others.release()
}

private[replay] object DriverCodecs {

  /** Snappy pages, uncompressed whole; holds nothing between pages. */
  object SnappyPages extends BytesInputDecompressor {
    def decompress(bytes: BytesInput, uncompressedSize: Int): BytesInput =
      BytesInput.from(uncompress(bytes.toByteArray, uncompressedSize))

    def decompress(
        input: ByteBuffer,
        compressedSize: Int,
        output: ByteBuffer,
        uncompressedSize: Int
    ): Unit = {
      val in = new Array[Byte](compressedSize)
      input.get(in)
      output.put(uncompress(in, uncompressedSize))
    }

    def release(): Unit = ()

    private def uncompress(in: Array[Byte], size: Int): Array[Byte] = {
      val length =
        try Snappy.uncompressedLength(in, 0, in.length)
        catch { case e: java.io.IOException => throw corrupt(e.getMessage, e) }
      if (length != size) throw corrupt(s"$length bytes where the page header gives $size", null)
      val out = new Array[Byte](size)
      val n =
        try Snappy.uncompress(in, 0, in.length, out, 0)
        catch { case e: java.io.IOException => throw corrupt(e.getMessage, e) }
      if (n != size) throw corrupt(s"$n bytes where the page header gives $size", null)
      out
    }

    private def corrupt(why: String, cause: Throwable): ParquetDecodingException =
      new ParquetDecodingException(s"snappy page does not uncompress: $why", cause)
  }
}
