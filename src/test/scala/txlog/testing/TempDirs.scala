package txlog.testing

import java.nio.file.{Files, Path}
import java.util.concurrent.ConcurrentLinkedQueue

import org.apache.commons.io.FileUtils

/** Temporary directories of a test JVM, each removed with everything in it when the JVM exits.
  * `File.deleteOnExit` removes a directory only when it is empty, so the tables the suites copy
  * were left behind: a thousand directories in the temporary folder per run of the suite.
  */
object TempDirs {
  private val created = new ConcurrentLinkedQueue[Path]()

  Runtime.getRuntime.addShutdownHook(new Thread("txlog-test-temp-dirs") {
    override def run(): Unit = remove(created.toArray(Array.empty[Path]).toList)
  })

  /** A new empty directory named with `prefix`, removed when the JVM exits. */
  def create(prefix: String): Path = {
    val d = Files.createTempDirectory(prefix)
    created.add(d)
    d
  }

  /** Removes each directory and what it holds; a symbolic link inside is removed, not followed. */
  def remove(dirs: Seq[Path]): Unit = dirs.foreach(d => FileUtils.deleteQuietly(d.toFile))
}
