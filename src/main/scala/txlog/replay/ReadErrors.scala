package txlog.replay

import scala.util.control.NonFatal

import txlog.{TxlogErrors, TxlogException}
import txlog.log.LogSegment

/** Turns a failure while reading a segment's files into an error that names the file. */
private[txlog] object ReadErrors {

  def translate[T](segment: LogSegment)(body: => T): T =
    try body
    catch {
      case e: TxlogException => throw e
      case NonFatal(e) =>
        val chain = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).toSeq
        chain.collectFirst { case t: TxlogException => t }.foreach(t => throw t)
        val text = chain.map(t => String.valueOf(t.getMessage)).mkString(" / ")
        val files = segment.checkpoint.toSeq.flatMap(_.files.map(f => f.version -> f.file.path)) ++
          segment.deltas.map(d => d.version -> d.file.path)
        val (version, file) = files
          .find { case (_, p) =>
            text.contains(p) || text.contains(p.stripPrefix("file:"))
          }
          .getOrElse(segment.version -> files.headOption.map(_._2).getOrElse(segment.table.root))
        val root = chain.last
        throw TxlogErrors.malformedLogFile(
          file,
          version,
          s"${root.getClass.getSimpleName}: ${String.valueOf(root.getMessage).take(300)}",
          e
        )
    }
}
