package txlog.bench

import java.nio.file.{Files, Path, StandardCopyOption}
import java.util.Comparator

import scala.util.Using

/** Private copies of tables for the tasks that write to them (checkpoint, update), made untimed
  * under `bench/out/scratch` as bench/worker.py's `scratch_copy` does.
  */
object Scratch {

  /** Runs `body` on a fresh copy of `table` (modification times kept, as the commits' times matter
    * for time travel), then deletes the copy. The scratch directory is `scratch` beside `tables` (a
    * generated table is `bench/out/tables/<name>/table`).
    */
  def withCopy[A](table: Path)(body: Path => A): A = {
    val dir = table.toAbsolutePath.getParent.getParent.resolveSibling("scratch")
    Files.createDirectories(dir)
    val root = Files.createTempDirectory(dir, "tmp")
    try {
      val copy = root.resolve("table")
      copyTree(table, copy)
      body(copy)
    } finally delete(root)
  }

  private def copyTree(from: Path, to: Path): Unit =
    Using.resource(Files.walk(from)) { paths =>
      paths.forEach { p =>
        val target = to.resolve(from.relativize(p).toString)
        if (Files.isDirectory(p)) Files.createDirectories(target)
        else Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES)
      }
    }

  private def delete(root: Path): Unit =
    Using.resource(Files.walk(root)) { paths =>
      paths.sorted(Comparator.reverseOrder[Path]()).forEach(p => Files.deleteIfExists(p))
    }
}
