package dev.arenascope.app.ui.sites;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.ObservableList;
import javafx.scene.control.Label;
import javafx.scene.control.OverrunStyle;
import javafx.scene.control.Tooltip;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeTableCell;
import javafx.scene.control.TreeTableColumn;
import javafx.scene.control.TreeTableView;

import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteDiff;
import dev.arenascope.core.analysis.SiteTree;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Percent;
import dev.arenascope.core.trace.StackFrame;

/**
 * The site view's tree table: the answer's sites (each with its callers beneath), call-tree nodes
 * (children made when first expanded, so a tree of any size opens at once) or categories, with bytes,
 * share of the answer's total, self bytes, allocation count, and in compare mode the baseline's bytes
 * and the change (growth red, shrink green). FX thread only.
 */
final class SiteTreeTable {
    static final String GROWTH = "site-growth";
    static final String SHRINK = "site-shrink";

    private final TreeTableView<SiteRow> table = new TreeTableView<>();
    private final TreeTableColumn<SiteRow, String> baselineColumn;
    private final TreeTableColumn<SiteRow, String> changeColumn;
    private final TreeTableColumn<SiteRow, String> selfColumn;
    private long total;

    SiteTreeTable() {
        table.setId("site-table");
        table.setShowRoot(false);
        table.setPlaceholder(new Label("Open a trace to see who holds its memory"));
        table.setColumnResizePolicy(TreeTableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        baselineColumn = column("Baseline", 90, r -> r.baselineBytes() < 0 || r.kind() == SiteRow.Kind.CALLER ? "" : Bytes.format(r.baselineBytes()));
        changeColumn = column("Change", 90, r -> r.baselineBytes() < 0 || r.kind() == SiteRow.Kind.CALLER ? "" : signed(r.delta()));
        changeColumn.setCellFactory(c -> new TreeTableCell<>() {
            @Override
            protected void updateItem(String item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty ? null : item);
                getStyleClass().removeAll(GROWTH, SHRINK);
                SiteRow r = empty || getTableRow() == null ? null : getTableRow().getItem();
                if (r != null && r.baselineBytes() >= 0 && r.kind() != SiteRow.Kind.CALLER && r.delta() != 0) {
                    getStyleClass().add(r.delta() > 0 ? GROWTH : SHRINK);
                }
            }
        });
        selfColumn = column("Self", 90, r -> r.kind() == SiteRow.Kind.NODE ? Bytes.format(r.self()) : "");
        TreeTableColumn<SiteRow, String> file = column("File", 260, SiteRow::location);
        file.setCellFactory(c -> new TreeTableCell<>() {
            {
                setTextOverrun(OverrunStyle.LEADING_ELLIPSIS); // the file's name matters more than its folder
            }

            @Override
            protected void updateItem(String item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty ? null : item);
                setTooltip(empty || item == null || item.isEmpty() ? null : new Tooltip(item));
            }
        });
        List<TreeTableColumn<SiteRow, String>> cols = List.of(
                column("Site", 300, r -> r.kind() == SiteRow.Kind.CALLER ? "← " + r.name() : r.name()),
                file,
                column("Bytes", 90, r -> r.bytes() < 0 ? "" : Bytes.format(r.bytes())),
                column("%", 60, r -> r.bytes() < 0 ? "" : Percent.of(r.bytes(), total)),
                selfColumn,
                column("Allocations", 90, r -> r.count() < 0 ? "" : String.format(Locale.ROOT, "%,d", r.count())),
                baselineColumn, changeColumn);
        table.getColumns().setAll(cols);
        for (int i = 2; i < cols.size(); i++) {
            cols.get(i).getStyleClass().add(Styles.NUMERIC);
        }
        table.setRoot(new TreeItem<>());
    }

    private static String signed(long delta) {
        return (delta > 0 ? "+" : delta < 0 ? "−" : "±") + Bytes.format(Math.abs(delta));
    }

    private static TreeTableColumn<SiteRow, String> column(String title, double width, Function<SiteRow, String> f) {
        TreeTableColumn<SiteRow, String> c = new TreeTableColumn<>(title);
        c.setPrefWidth(width);
        c.setSortable(false);
        c.setCellValueFactory(cd -> new ReadOnlyStringWrapper(cd.getValue().getValue() == null ? "" : f.apply(cd.getValue().getValue())));
        return c;
    }

    TreeTableView<SiteRow> view() {
        return table;
    }

    /** Shows {@code a}'s rows, keeping only those (and the tree nodes above them) that hold {@code search}. */
    void show(SiteAnswer a, String search) {
        String needle = search == null ? "" : search.strip().toLowerCase(Locale.ROOT);
        total = a.sites().totalBytes();
        boolean comparing = a.comparing();
        baselineColumn.setVisible(comparing);
        selfColumn.setVisible(a.request().shape() == SiteRequest.Shape.TOP_DOWN || a.request().shape() == SiteRequest.Shape.BOTTOM_UP);
        changeColumn.setVisible(comparing);
        BaselineMatch base = comparing ? new BaselineMatch(a.baseline(), a.baselineTree()) : null;
        TreeItem<SiteRow> root = new TreeItem<>();
        ObservableList<TreeItem<SiteRow>> top = root.getChildren();
        List<TreeItem<SiteRow>> items = new ArrayList<>();
        switch (a.request().shape()) {
            case SITES -> {
                for (SiteBreakdown.Row r : a.sites().rows()) {
                    SiteRow row = SiteRow.site(r, base == null ? -1 : base.row(r.label(), r.frames()));
                    if (row.matches(needle)) {
                        items.add(new SiteItem(row));
                    }
                }
                removed(a, needle, items, false);
            }
            case CATEGORY -> {
                for (SiteBreakdown.Row r : a.sites().rows()) {
                    SiteRow row = SiteRow.category(r, base == null ? -1 : base.row(r.label(), List.of()));
                    if (row.matches(needle)) {
                        items.add(new TreeItem<>(row));
                    }
                }
                removed(a, needle, items, true);
            }
            case TOP_DOWN, BOTTOM_UP -> {
                Set<SiteTree.Node> keep = needle.isEmpty() ? null : matchingSubtrees(a.tree().root(), needle);
                for (SiteTree.Node c : a.tree().root().children()) {
                    if (keep == null || keep.contains(c)) {
                        List<StackFrame> path = List.of(c.frame());
                        items.add(new NodeItem(c, path, base, keep));
                    }
                }
                long unsited = a.tree().root().selfBytes();
                if (unsited > 0) { // allocations without a stack: on no path of the tree, one line of their own
                    a.sites().rows().stream().filter(r -> r.frames().isEmpty()).findFirst().ifPresent(r -> {
                        SiteRow row = SiteRow.site(r, base == null ? -1 : base.row(r.label(), r.frames()));
                        if (row.matches(needle)) {
                            items.add(new TreeItem<>(row));
                        }
                    });
                }
                if (keep != null) {
                    expandAll(items);
                }
            }
        }
        top.setAll(items);
        table.setRoot(root);
    }

    /** Sites (or categories) only the baseline has: listed after the current ones, at 0 bytes. */
    private static void removed(SiteAnswer a, String needle, List<TreeItem<SiteRow>> items, boolean category) {
        SiteDiff d = a.diff();
        if (d == null) {
            return;
        }
        for (SiteDiff.Entry e : d.entries()) {
            if (e.status() == SiteDiff.Status.REMOVED) {
                SiteRow row = SiteRow.removed(e.label(), e.frames(), e.baselineBytes(), category);
                if (row.matches(needle)) {
                    items.add(new TreeItem<>(row));
                }
            }
        }
    }

    /** The nodes with a match at or below them (by identity: equal subtrees at two places are two nodes). */
    private static Set<SiteTree.Node> matchingSubtrees(SiteTree.Node root, String needle) {
        Set<SiteTree.Node> out = Collections.newSetFromMap(new IdentityHashMap<>());
        record Work(SiteTree.Node n, boolean exit) {}
        List<Work> stack = new ArrayList<>();
        stack.add(new Work(root, false));
        while (!stack.isEmpty()) {
            Work w = stack.removeLast();
            if (!w.exit) {
                stack.add(new Work(w.n, true));
                for (SiteTree.Node c : w.n.children()) {
                    stack.add(new Work(c, false));
                }
            } else {
                StackFrame f = w.n.frame();
                boolean self = f != null && (f.function().toLowerCase(Locale.ROOT).contains(needle)
                        || f.file().toLowerCase(Locale.ROOT).contains(needle));
                if (self || w.n.children().stream().anyMatch(out::contains)) {
                    out.add(w.n);
                }
            }
        }
        return out;
    }

    private static void expandAll(List<TreeItem<SiteRow>> items) {
        List<TreeItem<SiteRow>> stack = new ArrayList<>(items);
        int guard = 0;
        while (!stack.isEmpty() && guard++ < 5_000) {
            TreeItem<SiteRow> it = stack.removeLast();
            it.setExpanded(true);
            stack.addAll(it.getChildren());
        }
    }

    /** A flat site; its callers are its children. */
    private static final class SiteItem extends TreeItem<SiteRow> {
        private boolean made;

        SiteItem(SiteRow row) {
            super(row);
        }

        @Override
        public boolean isLeaf() {
            return getValue().siteFrames().size() <= 1;
        }

        @Override
        public ObservableList<TreeItem<SiteRow>> getChildren() {
            if (!made) {
                made = true;
                List<TreeItem<SiteRow>> kids = new ArrayList<>();
                for (int k = 1; k < getValue().siteFrames().size(); k++) {
                    kids.add(new TreeItem<>(SiteRow.caller(getValue(), k)));
                }
                super.getChildren().setAll(kids);
            }
            return super.getChildren();
        }
    }

    /** A call-tree node; its children are made when first asked for. */
    static final class NodeItem extends TreeItem<SiteRow> {
        private final SiteTree.Node node;
        private final BaselineMatch base;
        private final Set<SiteTree.Node> keep;
        private boolean made;

        NodeItem(SiteTree.Node node, List<StackFrame> path, BaselineMatch base, Set<SiteTree.Node> keep) {
            super(SiteRow.node(node, path, base == null ? -1 : base.node(path)));
            this.node = node;
            this.base = base;
            this.keep = keep;
        }

        @Override
        public boolean isLeaf() {
            return node.children().isEmpty();
        }

        @Override
        public ObservableList<TreeItem<SiteRow>> getChildren() {
            if (!made) {
                made = true;
                List<TreeItem<SiteRow>> kids = new ArrayList<>();
                for (SiteTree.Node c : node.children()) {
                    if (keep == null || keep.contains(c)) {
                        List<StackFrame> p = new ArrayList<>(getValue().path());
                        p.add(c.frame());
                        kids.add(new NodeItem(c, p, base, keep));
                    }
                }
                super.getChildren().setAll(kids);
            }
            return super.getChildren();
        }
    }

    /** The top-level item showing {@code test}'s row, or null. */
    TreeItem<SiteRow> find(Predicate<SiteRow> test) {
        for (TreeItem<SiteRow> it : table.getRoot().getChildren()) {
            if (it.getValue() != null && test.test(it.getValue())) {
                return it;
            }
        }
        return null;
    }

    /** The tree item at {@code path} (frames from the root down), expanding on the way; null when not shown. */
    TreeItem<SiteRow> findPath(List<StackFrame> path) {
        TreeItem<SiteRow> at = table.getRoot();
        for (StackFrame f : path) {
            TreeItem<SiteRow> next = null;
            for (TreeItem<SiteRow> c : at.getChildren()) {
                if (c.getValue() != null && f.equals(c.getValue().frame()) && c.getValue().kind() == SiteRow.Kind.NODE) {
                    next = c;
                    break;
                }
            }
            if (next == null) {
                return null;
            }
            if (at != table.getRoot()) {
                at.setExpanded(true);
            }
            at = next;
        }
        return at == table.getRoot() ? null : at;
    }
}
