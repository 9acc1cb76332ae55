package txlog.testing

import txlog.TxlogException

/** The cause chains of errors as tests read them. */
object Causes {

  /** The TxlogException on `e`'s cause chain (a task's or a write's error arrives wrapped by
    * Spark). Example: `Causes.txlog(e).map(_.errorClass)`.
    */
  def txlog(e: Throwable): Option[TxlogException] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst { case t: TxlogException =>
      t
    }
}
