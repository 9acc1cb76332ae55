package txlog.connect

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

import txlog.errors.TxlogErrors
import txlog.util.Lru

/** The objects a Connect session's calls returned (logs, snapshots, transactions, results,
  * DataFrames), by the ids its client holds in their place, as py4j keeps the objects a classic
  * session's Python holds. Bound: [[ConnectHandles.MaxHandles]] per session; past it the least
  * recently used is dropped, and a call naming it is INVALID_ARGUMENT (the client's object is gone,
  * nothing else is). The client releases the ids its objects no longer need with its next call; a
  * session's handles go when Spark Connect closes the session.
  *
  * {{{
  * val handles = ConnectHandles.of(sessionId)
  * val id = handles.put(log)
  * }}}
  */
private[txlog] final class ConnectHandles(bound: Int) {
  private val next = new AtomicLong
  private val objects = new Lru[String, AnyRef](bound)

  /** Keeps `o` and returns its new id. */
  def put(o: AnyRef): String = {
    val id = s"h${next.incrementAndGet()}"
    objects.put(id, o)
    id
  }

  /** The object of `id`, or INVALID_ARGUMENT when this session holds none under it. */
  def get(id: String): AnyRef = objects.get(id).orNull match {
    case null =>
      throw TxlogErrors.invalidArgument(
        "handle",
        s"$id is not an object of this Spark Connect session: it was released, or dropped " +
          s"after the session held ${bound} newer ones; obtain it again (for example with " +
          "DeltaLog.for_table)"
      )
    case o => o
  }

  def release(ids: Seq[String]): Unit = ids.foreach(objects.remove)

  def size: Int = objects.size
}

private[txlog] object ConnectHandles {

  /** Handles kept per Connect session. */
  val MaxHandles = 4096

  private val sessions = new ConcurrentHashMap[String, ConnectHandles]()

  /** The handles of the Connect session `sessionId`. */
  def of(sessionId: String): ConnectHandles =
    sessions.computeIfAbsent(sessionId, _ => new ConnectHandles(MaxHandles))

  /** Drops a closed session's handles. */
  def closed(sessionId: String): Unit = sessions.remove(sessionId)

  /** How many sessions hold handles. */
  def sessionCount: Int = sessions.size()
}
