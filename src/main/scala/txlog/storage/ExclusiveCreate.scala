package txlog.storage

import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import org.apache.commons.io.IOUtils
import org.apache.hadoop.fs.{FSDataOutputStream, FileSystem, Path}

/** Put-if-absent as `create(path, overwrite = false)` on object stores whose client makes that
  * create conditional on the server when the object is written, as the Google Cloud Storage
  * connector does (`gs://`: the upload carries the precondition `ifGenerationMatch=0`, so of two
  * racing creates the second is refused with 412 when it completes, and an object is visible only
  * once its upload completes). The schemes are those of
  * `spark.txlog.storage.exclusiveCreateSchemes` (`gs` by default).
  *
  * A name is not proof: before its first write to a file system, a JVM probes it
  * ([[ExclusiveCreate.probe]]), and a store that fails the probe is refused.
  */
private[txlog] object ExclusiveCreate {

  /** What the probe of a file system found: None when it passed, else why it failed. */
  private val probed = new ConcurrentHashMap[String, Option[String]]()

  private def id(fs: FileSystem): String = fs.getUri.toString

  /** Whether `fs`'s `create(path, overwrite = false)` is a put-if-absent, asked once per file
    * system and JVM, with a hidden probe file under `dir` (deleted afterwards): two creates of it
    * are opened before either is closed, and both written; the file must not be visible before the
    * first is closed, the second must fail (at its create or its close), and the file must hold the
    * first's bytes. None: it passed; Some(reason): it did not. A store that cannot be reached is
    * thrown (nothing is concluded from it).
    */
  def probe(fs: FileSystem, dir: Path): Option[String] =
    Option(probed.get(id(fs))).getOrElse {
      val outcome = runProbe(fs, dir)
      probed.put(id(fs), outcome)
      outcome
    }

  /** The cached probe outcome of `fs`, if it was probed in this JVM. */
  def probedOutcome(fs: FileSystem): Option[Option[String]] = Option(probed.get(id(fs)))

  private def runProbe(fs: FileSystem, dir: Path): Option[String] = {
    val p = new Path(dir, s".txlog-exclusive-create-probe-${UUID.randomUUID()}")
    def bytes(who: String) = s"txlog probe $who".getBytes(UTF_8)
    try {
      val first = fs.create(p, false)
      first.write(bytes("first"))
      if (fs.exists(p)) {
        abortQuietly(first)
        return Some(
          s"a file is visible before its stream is closed ($p): readers could see it " +
            "partial"
        )
      }
      // Nothing exists yet: a second create that fails now says nothing about the store.
      val second = fs.create(p, false)
      second.write(bytes("second"))
      first.close()
      val secondRefused =
        try { second.close(); false }
        catch {
          case NonFatal(e) if refusal(e) => true
          // Not a refusal (a timeout, a dropped connection): nothing is concluded.
          case NonFatal(e) => throw e
        }
      if (!secondRefused) {
        Some(
          s"a second create(overwrite = false) of one file ($p), opened before the first was " +
            "closed, succeeded too: the store does not refuse it when the file is written"
        )
      } else {
        val in = fs.open(p)
        val held =
          try IOUtils.toByteArray(in)
          finally in.close()
        if (java.util.Arrays.equals(held, bytes("first"))) None
        else Some(s"the probe file $p does not hold the first create's bytes")
      }
    } finally {
      try fs.delete(p, false)
      catch { case NonFatal(_) => () }
    }
  }

  /** Whether `e` is the store refusing a create because the file exists (the GCS connector: a
    * FileAlreadyExistsException, or the server's 412 Precondition Failed), through its causes.
    */
  private def refusal(e: Throwable): Boolean =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(10).exists {
      case _: java.nio.file.FileAlreadyExistsException              => true
      case _: org.apache.hadoop.fs.FileAlreadyExistsException       => true
      case t if Option(t.getMessage).exists(m => m.contains("412")) => true
      case _                                                        => false
    }

  private def abortQuietly(out: FSDataOutputStream): Unit =
    try out.abort()
    catch { case NonFatal(_) => () }
}
