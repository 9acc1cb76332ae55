package txlog.bench

import java.nio.file.{Files, Paths}

import scala.jdk.CollectionConverters._

/** The peak resident set size of this process (VmHWM), as bench/engines/base.py reads it. */
object PeakRss {

  /** VmHWM in MiB; None where `/proc/self/status` does not report it. */
  def mb: Option[Double] = {
    val status = Paths.get("/proc/self/status")
    if (!Files.isReadable(status)) None
    else
      Files.readAllLines(status).asScala.collectFirst {
        case line if line.startsWith("VmHWM:") => line.split("\\s+")(1).toLong / 1024.0
      }
  }
}
