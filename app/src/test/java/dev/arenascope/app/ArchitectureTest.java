package dev.arenascope.app;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.arenascope.core.archcheck.ImportsJavaFx;

/**
 * The dependency rules of the code base (docs/architecture.md), checked on the compiled main classes of
 * every module (this module's tests see the whole class path): a rule that breaks fails the build,
 * naming each offending dependency. Dependencies point app → sample-workloads → profiler-core; inside
 * the core, {@code device} is the floor, {@code trace} (the event model, files, store, imports and
 * exports) stands only on it, the recording pipeline and the allocator families stand on those, and the
 * analyses and reports on top; no package cycles anywhere.
 */
class ArchitectureTest {
    private static final String CORE = "dev.arenascope.core..";
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.arenascope");
        assertTrue(classes.stream().anyMatch(c -> c.getPackageName().startsWith("dev.arenascope.core.trace")),
                "the core's classes are on the class path");
        assertTrue(classes.stream().anyMatch(c -> c.getPackageName().startsWith("dev.arenascope.workloads")),
                "the workloads' classes are on the class path");
    }

    static ArchRule coreIsHeadless() {
        return noClasses().that().resideInAPackage(CORE)
                .should().dependOnClassesThat().resideInAnyPackage("javafx..", "com.sun.javafx..", "org.controlsfx..",
                        "dev.arenascope.app..", "dev.arenascope.workloads..", "dev.arenascope.testsupport..")
                .because("profiler-core is the library: no UI (not even javafx.beans), no app, no workloads");
    }

    @Test
    void theCoreImportsNoJavaFxNoAppNoWorkloads() {
        coreIsHeadless().check(classes);
    }

    @Test
    void onlyTheCoresSqlPackageSeesJdbcAndTheEngine() {
        noClasses().that().resideOutsideOfPackage("dev.arenascope.core.sql..")
                .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "org.duckdb..")
                .because("core.sql.TraceQuery is the one door to the SQL engine")
                .check(classes);
    }

    @Test
    void theWorkloadsImportNoAppAndNoJavaFx() {
        noClasses().that().resideInAPackage("dev.arenascope.workloads..")
                .should().dependOnClassesThat().resideInAnyPackage("javafx..", "dev.arenascope.app..", "dev.arenascope.testsupport..")
                .because("dependencies point app -> workloads -> core")
                .check(classes);
    }

    @Test
    void noMainCodeUsesTheTestSupport() {
        noClasses().that().resideOutsideOfPackage("dev.arenascope.testsupport..")
                .should().dependOnClassesThat().resideInAPackage("dev.arenascope.testsupport..")
                .check(classes);
    }

    @Test
    void onlyTheJUnitExtensionSeesJUnit() {
        noClasses().that().resideOutsideOfPackages("dev.arenascope.core.junit..", "dev.arenascope.testsupport..")
                .should().dependOnClassesThat().resideInAnyPackage("org.junit..", "org.opentest4j..")
                .because("junit-jupiter-api is an optional dependency of the core: only its extension package (and the "
                        + "tests' own helpers) may use it")
                .check(classes);
        noClasses().that().resideInAPackage(CORE).and().resideOutsideOfPackage("dev.arenascope.core.junit..")
                .should().dependOnClassesThat().resideInAPackage("dev.arenascope.core.junit..")
                .because("nothing in the core needs the test extension, so a program that links the core never loads it")
                .check(classes);
    }

    @Test
    void devicesAreTheFloor() {
        noClasses().that().resideInAPackage("dev.arenascope.core.device..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.arenascope.core.trace..", "dev.arenascope.core.record..",
                        "dev.arenascope.core.arena..", "dev.arenascope.core.pool..", "dev.arenascope.core.plan..",
                        "dev.arenascope.core.analysis..", "dev.arenascope.core.report..", "dev.arenascope.core.live..")
                .check(classes);
    }

    @Test
    void theSharedCollectionsStandOnNothing() {
        noClasses().that().resideInAPackage("dev.arenascope.core.util..")
                .should().dependOnClassesThat().resideOutsideOfPackages("java..", "dev.arenascope.core.util..")
                .because("core.util holds plain data structures every other package may use")
                .check(classes);
    }

    @Test
    void theFormatsStandOnNothing() {
        noClasses().that().resideInAPackage("dev.arenascope.core.format..")
                .should().dependOnClassesThat().resideOutsideOfPackages("java..", "dev.arenascope.core.format..")
                .because("core.format (bytes, durations, percentages for people) is below every other package")
                .check(classes);
    }

    @Test
    void traceImportsNothingAboveIt() {
        noClasses().that().resideInAPackage("dev.arenascope.core.trace..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.arenascope.core.record..", "dev.arenascope.core.arena..",
                        "dev.arenascope.core.pool..", "dev.arenascope.core.plan..", "dev.arenascope.core.analysis..",
                        "dev.arenascope.core.report..", "dev.arenascope.core.live..")
                .because("the event model, its files and its store stand only on the devices")
                .check(classes);
    }

    @Test
    void theRecordingPipelineKnowsNoAllocatorNorAnalysis() {
        noClasses().that().resideInAPackage("dev.arenascope.core.record..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.arenascope.core.arena..", "dev.arenascope.core.pool..", "dev.arenascope.core.plan..",
                        "dev.arenascope.core.analysis..", "dev.arenascope.core.report..", "dev.arenascope.core.live..")
                .check(classes);
    }

    @Test
    void theAllocatorFamiliesAreIndependent() {
        String[] above = {"dev.arenascope.core.analysis..", "dev.arenascope.core.report..", "dev.arenascope.core.live.."};
        noClasses().that().resideInAPackage("dev.arenascope.core.arena..")
                .should().dependOnClassesThat().resideInAnyPackage(concat(above, "dev.arenascope.core.pool..", "dev.arenascope.core.plan.."))
                .check(classes);
        noClasses().that().resideInAPackage("dev.arenascope.core.pool..")
                .should().dependOnClassesThat().resideInAnyPackage(concat(above, "dev.arenascope.core.arena..", "dev.arenascope.core.plan.."))
                .check(classes);
        noClasses().that().resideInAPackage("dev.arenascope.core.plan..")
                .should().dependOnClassesThat().resideInAnyPackage(concat(above, "dev.arenascope.core.arena..", "dev.arenascope.core.pool.."))
                .check(classes);
    }

    @Test
    void analysesKnowNoReportAndReportsNoLiveStreaming() {
        noClasses().that().resideInAPackage("dev.arenascope.core.analysis..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.arenascope.core.report..", "dev.arenascope.core.live..")
                .check(classes);
        noClasses().that().resideInAPackage("dev.arenascope.core.report..")
                .should().dependOnClassesThat().resideInAPackage("dev.arenascope.core.live..")
                .check(classes);
    }

    @Test
    void theCoreHasNoPackageCycles() {
        // the calibration recorder lives in arena, so record -> arena, the last edge running back, is gone
        slices().matching("dev.arenascope.core.(**)").should().beFreeOfCycles()
                .check(classes);
    }

    @Test
    void theCommandLineKnowsNoWindowAndNoCommand() {
        noClasses().that().resideInAPackage("dev.arenascope.app.cli..")
                .should().dependOnClassesThat(resideInAnyPackage("dev.arenascope.app..").and(DescribedPredicate.not(
                        resideInAnyPackage("dev.arenascope.app.cli..", "dev.arenascope.app.info.."))))
                .orShould().dependOnClassesThat().resideInAnyPackage("javafx..")
                .because("the dispatcher is given its commands where Main assembles the application; it knows only app.info")
                .check(classes);
    }

    @Test
    void theWindowUsesTheCommandLineOnlyForItsOpenCommand() {
        noClasses().that().resideInAPackage("dev.arenascope.app.ui..")
                .and().doNotHaveFullyQualifiedName("dev.arenascope.app.ui.OpenCommand")
                .should().dependOnClassesThat().resideInAPackage("dev.arenascope.app.cli..")
                .because("version and exit codes are app.info; the window does not import the CLI")
                .check(classes);
    }

    @Test
    void theBenchIsNotPartOfTheApp() {
        // the bench measures the app from outside (module app-bench, found through ServiceLoader); nothing here names it
        noClasses().that().resideInAPackage("dev.arenascope.app..")
                .should().dependOnClassesThat().resideInAPackage("dev.arenascope.app.bench..")
                .because("`arenascope bench` is its own module, depending on the app; the app finds it through ServiceLoader")
                .check(classes);
        assertTrue(classes.stream().noneMatch(c -> c.getPackageName().startsWith("dev.arenascope.app.bench")),
                "bench classes in the app's jar");
    }

    @Test
    void theCommandsKnowOnlyTheDispatcherTheInfoAndEachOther() {
        // the app reads as commands | window: a command's room sees the CLI's dispatcher and parser, the
        // version and exit codes, and other command rooms (the job inputs, the what-if), never the window or Main
        noClasses().that().resideInAPackage("dev.arenascope.app.commands..")
                .should().dependOnClassesThat(resideInAnyPackage("dev.arenascope.app..").and(DescribedPredicate.not(
                        resideInAnyPackage("dev.arenascope.app.cli..", "dev.arenascope.app.info..", "dev.arenascope.app.commands.."))))
                .because("the headless commands are one room (app.commands) beside the window (app.ui)")
                .check(classes);
    }

    @Test
    void everythingOutsideTheWindowIsHeadless() {
        // written by exclusion, so a new package (a new command's room) is held to it without a change here
        noClasses().that().resideInAPackage("dev.arenascope.app..")
                .and().resideOutsideOfPackages("dev.arenascope.app.ui..")
                .and().doNotHaveFullyQualifiedName(Main.class.getName())
                .should().dependOnClassesThat().resideInAnyPackage("dev.arenascope.app.ui..", "javafx..", "com.sun.javafx..", "org.controlsfx..")
                .because("a headless sub-command runs where there is no display and no JavaFX toolkit; only the window (app.ui) "
                        + "and Main, which starts it, see JavaFX (the bench that measures the window is the app-bench module)")
                .check(classes);
    }

    @Test
    void theAppWritesJsonOnlyThroughTheCoresOneSetUp() {
        noClasses().that().resideInAPackage("dev.arenascope.app..")
                .should().dependOnClassesThat().haveFullyQualifiedName("com.fasterxml.jackson.core.JsonFactory")
                .orShould().dependOnClassesThat().resideInAPackage("com.fasterxml.jackson.databind..")
                .because("every command's JSON is made by core.report.JsonOutput (encoding, escapes, numbers), so keys and "
                        + "number formats cannot drift between commands")
                .check(classes);
    }

    @Test
    void onlyMainAssemblesTheApplication() {
        noClasses().that().resideInAPackage("dev.arenascope.app..").and().doNotHaveFullyQualifiedName(Main.class.getName())
                .should().dependOnClassesThat().haveFullyQualifiedName(Main.class.getName())
                .check(classes);
    }

    @Test
    void theAppHasNoPackageCycles() {
        slices().matching("dev.arenascope.app.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void aBrokenRuleFailsTheCheck() {
        // a class compiled for this test alone: a core class that imports JavaFX
        JavaClasses offender = new ClassFileImporter().importClasses(ImportsJavaFx.class);
        AssertionError e = assertThrows(AssertionError.class, () -> coreIsHeadless().check(offender));
        assertTrue(e.getMessage().contains("javafx.beans.property.SimpleIntegerProperty"), e.getMessage());
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
