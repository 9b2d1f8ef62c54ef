package dev.arenascope.app.ui.live;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import javafx.animation.Animation;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.stage.Stage;
import javafx.stage.Window;
import javafx.util.Duration;

import dev.arenascope.app.ui.common.Placement;
import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.live.ConnectionStats;
import dev.arenascope.core.live.LiveProtocol;
import dev.arenascope.core.live.LiveReceiver;
import dev.arenascope.core.trace.store.EventStore;

/**
 * "Listen for processes": a window that accepts profiled processes streaming over the live protocol
 * (loopback), one store per connection, listing each with its state, events, event rate and losses.
 * Each newly connected process takes over the main window; "Show" switches back to another. Listening
 * goes on when the window is closed (Esc closes it), with a badge in the main window saying so.
 *
 * <p>A receiver numbers its connections from 1, and stopping and starting listening starts a new receiver:
 * so the view keys what it keeps of a connection (its store, whether it was seen, which is shown) by a
 * {@link Key}, the listening's own number with the connection's, which no later connection has.
 */
public final class ListenView {
    private final SessionModel model;
    private final TaskRunner tasks;
    private final Map<Key, EventStore> stores = new ConcurrentHashMap<>();
    private final TableView<ConnectionStats> table = new TableView<>();
    private final TextField port = new TextField(Integer.toString(LiveProtocol.DEFAULT_PORT));
    private final Button toggle = new Button("Start listening");
    private final Button show = new Button("Show");
    private final Label state = new Label("Not listening");
    private final Timeline ticker = new Timeline(new KeyFrame(Duration.millis(100), e -> refresh()));
    private Stage stage;
    private LiveReceiver receiver;
    /** How many times listening was started; the current listening's number. */
    private int listenings;
    private Key shown;
    private Key endedShown;
    private final Set<Key> seen = new HashSet<>();
    private final ReadOnlyStringWrapper listening = new ReadOnlyStringWrapper(this, "listening", "");

    /**
     * One connection for the lifetime of this view: the number of the listening it came to (1 for the first
     * time listening was started, 2 after a stop and start, ...) and the receiver's number for it.
     */
    public record Key(int listening, int connection) {}

    public ListenView(SessionModel model, TaskRunner tasks) {
        this.model = model;
        this.tasks = tasks;
        ticker.setCycleCount(Animation.INDEFINITE);
    }

    private Stage build(Window owner) {
        Stage s = new Stage();
        s.initOwner(owner);
        s.setTitle("Listen for processes");
        table.setId("listen-table");
        table.setPlaceholder(new Label("No process connected. Run: arenascope record WORKLOAD --live 127.0.0.1:" + port.getText()));
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.getColumns().setAll(List.of(
                col("#", 36, c -> Integer.toString(c.connection())),
                col("Process", 190, ListenView::processName),
                col("From", 130, c -> c.peer() == null ? "" : address(c.peer().remoteAddress())),
                col("State", 70, c -> c.state().name().toLowerCase(Locale.ROOT)),
                col("Events", 90, c -> String.format(Locale.ROOT, "%,d", c.events())),
                col("Events/s", 80, ListenView::rate),
                col("Lost", 60, c -> String.format(Locale.ROOT, "%,d", c.lostEvents())),
                col("Received", 80, c -> Bytes.format(c.bytes())),
                col("Detail", 160, c -> c.detail() == null ? "" : c.detail())));
        port.setId("listen-port");
        port.setPrefColumnCount(6);
        toggle.setId("listen-toggle");
        toggle.setOnAction(e -> toggle());
        show.setId("listen-show");
        show.setOnAction(e -> {
            ConnectionStats c = table.getSelectionModel().getSelectedItem();
            if (c != null) {
                showConnection(c);
            }
        });
        state.setId("listen-state");
        HBox.setHgrow(state, Priority.ALWAYS);
        HBox bar = new HBox(8, new Label("Port (loopback)"), port, toggle, show, state);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setPadding(new Insets(6));
        BorderPane root = new BorderPane(table);
        root.setTop(bar);
        root.getStyleClass().add(Styles.ROOT);
        Scene scene = new Scene(root, 1000, 340);
        if (owner != null && owner.getScene() != null) {
            scene.getStylesheets().addAll(owner.getScene().getStylesheets());
        }
        scene.setOnKeyPressed(e -> {
            if (e.getCode() == KeyCode.ESCAPE) {
                s.hide(); // closing the window does not stop listening: the main window's badge says so
                e.consume();
            }
        });
        s.setScene(scene);
        // sized from its table's columns, centred on the main window, then where the user leaves it
        Placement.fitAndCentre(s, owner, 1000, 340);
        // the ticker runs while listening, shown or not: the main window keeps following the process
        s.setOnShown(e -> ticker.play());
        return s;
    }

    /** "render (pid 4242)", or "pid 4242" for a process that named no session. */
    public static String processName(ConnectionStats c) {
        if (c.peer() == null) {
            return "";
        }
        String name = c.peer().session() == null ? "" : c.peer().session().name();
        return name.isEmpty() ? "pid " + c.peer().processId() : name + " (pid " + c.peer().processId() + ")";
    }

    /** A socket address as a person writes it: "/127.0.0.1:5555" (InetSocketAddress's form) is "127.0.0.1:5555". */
    public static String address(String remote) {
        if (remote == null) {
            return "";
        }
        int slash = remote.indexOf('/');
        return slash >= 0 ? remote.substring(slash + 1) : remote;
    }

    private static TableColumn<ConnectionStats, String> col(String t, double width, Function<ConnectionStats, String> f) {
        TableColumn<ConnectionStats, String> c = new TableColumn<>(t);
        c.setPrefWidth(width);
        c.setMinWidth(Math.min(width, 40));
        c.setCellValueFactory(cd -> new ReadOnlyStringWrapper(f.apply(cd.getValue())));
        c.setSortable(false);
        return c;
    }

    /** The window, once shown (tests); null before. */
    public Stage stage() {
        return stage;
    }

    public void show(Window owner) {
        if (stage == null) {
            stage = build(owner);
        }
        stage.show();
        stage.toFront();
    }

    /** Starts or stops listening. */
    public void toggle() {
        if (receiver != null) {
            receiver.close();
            // the connections ended with the receiver: the shown one is told so, as when its process ends
            refresh();
            receiver = null;
            ticker.stop();
            toggle.setText("Start listening");
            state.setText("Not listening");
            listening.set("");
            return;
        }
        try {
            int p = Integer.parseInt(port.getText().trim());
            int number = listenings + 1;
            receiver = LiveReceiver.start(LiveReceiver.Options.loopback(p), peer -> {
                EventStore store = EventStore.live(peer.session() == null ? "process " + peer.processId() : peer.session().name());
                stores.put(new Key(number, peer.connection()), store);
                return store;
            });
            listenings = number;
            // what earlier listenings received goes, but the store the window shows (the user may still be reading it)
            stores.keySet().removeIf(k -> k.listening() != number && !k.equals(shown));
            seen.removeIf(k -> k.listening() != number);
            toggle.setText("Stop listening");
            state.setText("Listening on 127.0.0.1:" + receiver.port());
            listening.set("127.0.0.1:" + receiver.port());
            ticker.play();
        } catch (NumberFormatException e) {
            state.setText("port: '" + port.getText() + "' is not a number");
        } catch (Exception e) {
            state.setText("cannot listen: " + e.getMessage());
        }
    }

    /** The address listened on ("127.0.0.1:5555"), empty while not listening. */
    public ReadOnlyStringProperty listeningProperty() {
        return listening.getReadOnlyProperty();
    }

    /** Whether the Listen window is on screen. */
    public boolean isShowing() {
        return stage != null && stage.isShowing();
    }

    /** The port listened on, or -1. */
    public int listeningPort() {
        return receiver == null ? -1 : receiver.port();
    }

    /** The key of a connection of the current listening. */
    private Key key(ConnectionStats c) {
        return new Key(listenings, c.connection());
    }

    private void refresh() {
        if (receiver == null) {
            return;
        }
        List<ConnectionStats> stats = receiver.stats();
        updateRows(stats);
        // a connection not seen before takes over the view (the newest process is the one being run), unless the
        // one shown is still streaming: processes of one job arrive together, and switching the whole window to
        // each in turn kept its FX thread rebuilding views for seconds; they are ranks of the Ranks view instead
        for (ConnectionStats c : stats) {
            if (stores.containsKey(key(c)) && seen.add(key(c)) && !shownStreaming(stats)) {
                showConnection(c);
            }
        }
        if (shown != null) {
            model.refresh();
            for (ConnectionStats c : stats) {
                if (key(c).equals(shown) && c.state().ended() && !shown.equals(endedShown)) {
                    endedShown = shown;
                    model.followLiveProperty().set(false);
                    model.liveEnded();
                }
            }
        }
    }

    /**
     * Brings the table to {@code stats}, touching only the rows whose text changed: the ticker runs ten times a
     * second, and replacing every row each time (setAll) had the FX thread lay out every cell of the table ten
     * times a second even when nothing in it changed (ended connections, a process between steps). The
     * selected connection stays selected.
     */
    private void updateRows(List<ConnectionStats> stats) {
        var items = table.getItems();
        boolean sameConnections = items.size() <= stats.size();
        for (int i = 0; sameConnections && i < items.size(); i++) {
            sameConnections = items.get(i).connection() == stats.get(i).connection();
        }
        if (!sameConnections) {
            ConnectionStats sel = table.getSelectionModel().getSelectedItem();
            items.setAll(stats);
            if (sel != null) {
                for (ConnectionStats c : stats) {
                    if (c.connection() == sel.connection()) {
                        table.getSelectionModel().select(c);
                    }
                }
            }
            return;
        }
        int selected = table.getSelectionModel().getSelectedIndex();
        for (int i = 0; i < items.size(); i++) {
            if (!sameRow(items.get(i), stats.get(i))) {
                items.set(i, stats.get(i));
                if (i == selected && table.getSelectionModel().getSelectedIndex() != i) {
                    table.getSelectionModel().select(i);
                }
            }
        }
        if (stats.size() > items.size()) {
            items.addAll(stats.subList(items.size(), stats.size())); // newly connected processes
        }
    }

    /**
     * Whether two figures of one connection read the same in the table and to whoever reads its rows: equal
     * but for the event rate, which differs at every tick in a digit the table does not show.
     */
    static boolean sameRow(ConnectionStats a, ConnectionStats b) {
        return a.equals(b) || a.connection() == b.connection() && Objects.equals(a.peer(), b.peer()) && a.state() == b.state()
                && a.events() == b.events() && a.lostEvents() == b.lostEvents() && a.bytes() == b.bytes() && a.startedMs() == b.startedMs()
                && a.endedMs() == b.endedMs() && Objects.equals(a.detail(), b.detail()) && rate(a).equals(rate(b));
    }

    /** The Events/s column's text. */
    private static String rate(ConnectionStats c) {
        return String.format(Locale.ROOT, "%,.0f", c.state().ended() ? 0.0 : c.eventsPerSecond());
    }

    /** Whether the connection shown is one of {@code stats} that has not ended. */
    private boolean shownStreaming(List<ConnectionStats> stats) {
        return shown != null && stats.stream().anyMatch(c -> key(c).equals(shown) && !c.state().ended());
    }

    private void showConnection(ConnectionStats c) {
        EventStore store = stores.get(key(c));
        if (store == null) {
            return;
        }
        shown = key(c);
        model.followLiveProperty().set(!c.state().ended());
        String name = c.peer() == null || c.peer().session() == null ? "process" : c.peer().session().name();
        model.show(store, name + " · connection " + c.connection(), c.peer() == null ? "" : "pid " + c.peer().processId() + " @ " + c.peer().remoteAddress());
    }

    /**
     * One listened connection: its key (unique for this view's lifetime), its figures and the store its
     * events go to (null for a connection whose hello was refused or has not arrived).
     */
    public record Connection(Key key, ConnectionStats stats, EventStore store) {}

    /** Every connection so far, in connection order (empty while not listening). FX thread. */
    public List<Connection> connections() {
        if (receiver == null) {
            return List.of();
        }
        return receiver.stats().stream().map(c -> new Connection(key(c), c, stores.get(key(c)))).toList();
    }

    /** Whether {@code view} is the store of one of the listened connections. */
    public boolean holds(dev.arenascope.core.trace.TraceView view) {
        return view != null && stores.containsValue(view);
    }

    /** The port field (0 picks a free port). */
    public TextField portField() {
        return port;
    }

    public TableView<ConnectionStats> table() {
        return table;
    }

    public void close() {
        ticker.stop();
        if (receiver != null) {
            receiver.close();
            receiver = null;
        }
        listening.set("");
        if (stage != null) {
            stage.close();
        }
    }
}
