/**
 * Device-memory limits in JUnit 5 tests: {@link dev.arenascope.core.junit.DeviceMemoryLimit},
 * {@link dev.arenascope.core.junit.DeviceLeakLimit}, {@link dev.arenascope.core.junit.DeviceAllocationLimit}
 * and the {@link dev.arenascope.core.junit.ArenaScopeExtension} that records each test and checks them.
 * The only package of the core that sees JUnit: core declares {@code junit-jupiter-api} optional, so a
 * program that links the core does not inherit it; its tests have it already.
 */
package dev.arenascope.core.junit;
