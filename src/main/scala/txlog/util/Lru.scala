package txlog.util

/** A map of at most `max` entries that drops the least recently used one past that bound; safe to
  * share between threads (each call holds its lock for a map operation, never while a value is
  * computed). The driver's caches of derived, immutable things use it: a value computed twice by
  * two racing threads is the same value, and the later one is kept.
  *
  * {{{
  * val shapes = new Lru[Metadata, Shapes](16)
  * val s = shapes.getOrElseUpdate(md, new Shapes(md))
  * }}}
  */
private[txlog] final class Lru[K, V <: AnyRef](val max: Int) {
  require(max > 0, s"an Lru holds at least one entry, not $max")

  private val entries = new java.util.LinkedHashMap[K, V](16, 0.75f, true) {
    override def removeEldestEntry(e: java.util.Map.Entry[K, V]): Boolean = size() > max
  }

  /** The value of `key`, now the most recently used, if held. */
  def get(key: K): Option[V] = entries.synchronized(Option(entries.get(key)))

  /** Holds `value` under `key` (dropping the least recently used entry past [[max]]). */
  def put(key: K, value: V): Unit = entries.synchronized { entries.put(key, value); () }

  /** The value of `key`, or `make`'s, computed outside the lock and then held. */
  def getOrElseUpdate(key: K, make: => V): V = get(key).getOrElse {
    val v = make
    put(key, v)
    v
  }

  /** Drops `key`'s entry, if any. */
  def remove(key: K): Unit = entries.synchronized { entries.remove(key); () }

  /** How many entries are held (at most [[max]]). */
  def size: Int = entries.synchronized(entries.size())
}
